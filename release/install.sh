#!/bin/sh
# Installs ply from a release archive: downloads the archive for this
# system and the release's checksums.txt, checks the archive's SHA-256
# against it, and puts the binary in the install directory. Nothing is
# installed when the check fails.
#
#   curl -fsSL https://raw.githubusercontent.com/plyhq/ply/main/release/install.sh | sh
#
# Environment:
#   PLY_VERSION      the version to install, without a leading v (required)
#   PLY_INSTALL_DIR  where the binary goes (default: $HOME/.local/bin)
#   PLY_BASE_URL     where the archives are (default: the release's download URL)
set -eu

fail() { echo "ply install: $*" >&2; exit 1; }

version="${PLY_VERSION:-}"
[ -n "$version" ] || fail "set PLY_VERSION to the version to install (for example PLY_VERSION=1.2.3)"
case "$version" in
	v*) version="${version#v}" ;;
esac
dir="${PLY_INSTALL_DIR:-${HOME:?}/.local/bin}"
base="${PLY_BASE_URL:-https://github.com/plyhq/ply/releases/download/v$version}"

case "$(uname -s)" in
	Linux) os=linux ;;
	Darwin) os=darwin ;;
	*) fail "no release archive for $(uname -s); on Windows download the .zip from the release page" ;;
esac
case "$(uname -m)" in
	x86_64 | amd64) arch=amd64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) fail "no release archive for the architecture $(uname -m)" ;;
esac
archive="ply_${version}_${os}_${arch}.tar.gz"

if command -v curl >/dev/null 2>&1; then
	fetch() { curl -fsSL -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
	fetch() { wget -q -O "$2" "$1"; }
else
	fail "needs curl or wget"
fi
if command -v sha256sum >/dev/null 2>&1; then
	sha256() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then
	sha256() { shasum -a 256 "$1" | cut -d' ' -f1; }
else
	fail "needs sha256sum or shasum to check the archive"
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT INT TERM
fetch "$base/checksums.txt" "$tmp/checksums.txt" || fail "cannot download $base/checksums.txt"
fetch "$base/$archive" "$tmp/$archive" || fail "cannot download $base/$archive"
want="$(awk -v n="$archive" '$2 == n { print $1 }' "$tmp/checksums.txt")"
[ -n "$want" ] || fail "checksums.txt has no line for $archive"
got="$(sha256 "$tmp/$archive")"
[ "$got" = "$want" ] || fail "checksum mismatch for $archive: got $got, want $want; nothing installed"

tar -xzf "$tmp/$archive" -C "$tmp"
mkdir -p "$dir"
# Replaced in one rename, so a running ply is never half-written.
cp "$tmp/ply_${version}_${os}_${arch}/ply" "$dir/.ply.new"
chmod 755 "$dir/.ply.new"
mv -f "$dir/.ply.new" "$dir/ply"
echo "ply $version installed to $dir/ply"
case ":$PATH:" in
	*":$dir:"*) ;;
	*) echo "add $dir to your PATH to run it as ply" ;;
esac
