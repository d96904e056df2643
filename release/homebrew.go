package main

import (
	"fmt"
	"strings"
)

// releaseURL is where a release's archives are downloaded from.
const releaseURL = "https://github.com/plyhq/ply/releases/download/v%s/"

// homebrewFormula is the Homebrew formula for the release: the archive
// and checksum of each macOS and Linux target in sums.
func homebrewFormula(version string, sums map[string]string) (string, error) {
	var sb strings.Builder
	fmt.Fprintf(&sb, `class Ply < Formula
  desc "Coding agent for the terminal, in one binary"
  homepage "https://github.com/plyhq/ply"
  version %q
`, version)
	for _, sys := range []struct{ os, block string }{{"darwin", "on_macos"}, {"linux", "on_linux"}} {
		var arches strings.Builder
		for _, a := range []struct{ arch, block string }{{"arm64", "on_arm"}, {"amd64", "on_intel"}} {
			name := archiveName(version, target{sys.os, a.arch})
			sum, ok := sums[name]
			if !ok {
				continue
			}
			fmt.Fprintf(&arches, "    %s do\n      url %q\n      sha256 %q\n    end\n", a.block, fmt.Sprintf(releaseURL, version)+name, sum)
		}
		if arches.Len() > 0 {
			fmt.Fprintf(&sb, "\n  %s do\n%s  end\n", sys.block, arches.String())
		}
	}
	sb.WriteString(`
  def install
    bin.install "ply"
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/ply --version")
  end
end
`)
	return sb.String(), nil
}
