#!/usr/bin/env bash
# Re-vendors KaTeX's stylesheet and fonts into book/katex/ from the npm
# package katex@0.16.4 — the KaTeX version the `katex` crate renders with,
# so the pre-rendered HTML and the CSS match. Only the woff2 fonts are kept
# (every current browser reads them); the stylesheet's woff/ttf fallbacks
# are removed so it names no file that is not here. Run by hand, once per
# KaTeX upgrade; the result is committed and the build needs no network.
set -euo pipefail
version=0.16.4
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "katex@$version" >/dev/null && tar xzf "katex-$version.tgz")
dest="$root/book/katex"
rm -rf "$dest"
mkdir -p "$dest/fonts"
cp "$work/package/dist/fonts/"*.woff2 "$dest/fonts/"
cp "$work/package/LICENSE" "$dest/LICENSE"
sed -E 's/,url\(fonts\/[A-Za-z0-9_-]+\.woff\) format\("woff"\),url\(fonts\/[A-Za-z0-9_-]+\.ttf\) format\("truetype"\)//g' \
  "$work/package/dist/katex.min.css" > "$dest/katex.min.css"
if grep -Eq '\.(woff|ttf)\)' "$dest/katex.min.css"; then
  echo "vendor-katex: the stylesheet still names woff/ttf files" >&2
  exit 1
fi
echo "KaTeX $version vendored into book/katex ($(ls "$dest/fonts" | wc -l) fonts)"
