//go:build !unix

package fleet

import "os"

// MaxRSS is unknown here.
func MaxRSS(*os.ProcessState) int64 { return 0 }
