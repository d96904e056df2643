package gitstate

import (
	"compress/zlib"
	"io"
)

func zlibWriter(w io.Writer) *zlib.Writer { return zlib.NewWriter(w) }
