package lookup

import (
	"github.com/btfinline/btfinline/internal/debuginfod"
	"github.com/btfinline/btfinline/internal/encode"
	"github.com/btfinline/btfinline/internal/ksys"
)

// Standard returns the chain as btfinline's commands and its public API
// run it: the cache in dir (DefaultCacheDir when ""), DWARF encoded with
// encode's defaults, and the debuginfod servers of DEBUGINFOD_URLS unless
// noFetch. The client is returned so that the caller can show progress
// (its Progress field); it is nil when nothing is fetched.
func Standard(sys ksys.System, dir string, noFetch bool) (Options, *debuginfod.Client, error) {
	if dir == "" {
		d, err := DefaultCacheDir()
		if err != nil {
			return Options{}, nil, err
		}
		dir = d
	}
	o := Options{Sys: sys, Cache: Cache{Dir: dir}, Encode: encode.Defaults()}
	switch c := debuginfod.FromEnv(); {
	case noFetch:
		o.NoFetch = "not asked (--no-fetch)"
	case len(c.URLs) == 0:
		o.NoFetch = "DEBUGINFOD_URLS is not set"
	default:
		o.Fetch, o.FetchSize = c.Debuginfo, c.Size
		return o, c, nil
	}
	return o, nil, nil
}
