//go:build !unix

package main

import "os"

// maxRSS is 0 where the system reports no peak resident set.
func maxRSS(*os.ProcessState) float64 { return 0 }
