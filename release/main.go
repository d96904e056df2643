// Command release builds ply's release: for each target an archive
// holding the binary, stamped with the version and commit (tar.gz; zip
// for Windows), a checksums file (SHA-256), the npm packages (a main
// package and one per target carrying its binary) and the Homebrew
// formula. The build is reproducible: the same source, version and
// commit give byte-identical archives wherever they are built
// (-trimpath, no VCS stamp, no build ID, fixed times and owners in the
// archives).
//
//	go run ./release -version 1.2.3 [-commit SHA] [-out dist] [-targets linux/amd64,...]
//
// It publishes nothing.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

func main() {
	var o options
	var targets string
	flag.StringVar(&o.Version, "version", "", "the version to stamp, without a leading v (required)")
	flag.StringVar(&o.Commit, "commit", "", "the commit to stamp (default: git rev-parse HEAD)")
	flag.StringVar(&o.Out, "out", "dist", "the directory to write the release into (emptied first)")
	flag.StringVar(&targets, "targets", "", "comma-separated GOOS/GOARCH pairs (default: all six)")
	flag.Parse()
	if targets != "" {
		for _, t := range strings.Split(targets, ",") {
			tg, err := parseTarget(t)
			if err != nil {
				fmt.Fprintln(os.Stderr, "release:", err)
				os.Exit(2)
			}
			o.Targets = append(o.Targets, tg)
		}
	}
	if o.Commit == "" {
		out, err := exec.Command("git", "rev-parse", "HEAD").Output()
		if err != nil {
			fmt.Fprintln(os.Stderr, "release: no -commit and git rev-parse HEAD failed:", err)
			os.Exit(2)
		}
		o.Commit = strings.TrimSpace(string(out))
	}
	if err := build(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}
