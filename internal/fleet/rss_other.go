//go:build !unix

package fleet

import "os"

// maxRSS is unknown here.
func maxRSS(*os.ProcessState) int64 { return 0 }
