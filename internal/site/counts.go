package site

// Counts summarise a list of sites. Params counts the parameters of the
// inlined functions over all sites (Site.Params without a varargs slot).
type Counts struct {
	Sites           int
	Functions       int // distinct inlined functions among Sites
	Params          int
	Located         int // parameters with a representable location
	Missing         int // parameters with no location at the site
	Unrepresentable int
	AllLocated      int // sites with every parameter located (and >= 1)
	SomeLocated     int
	NoneLocated     int // sites with >= 1 parameter, none located
	NoParams        int
	Reasons         map[string]int // unrepresentable locations by reason
}

// Count counts what sites show: how many, of how many functions, and how
// many of their parameters have a location.
func Count(sites []Site) Counts {
	st := Counts{Reasons: make(map[string]int)}
	funcs := make(map[*Func]bool)
	for i := range sites {
		funcs[sites[i].Func] = true
		st.Add(&sites[i])
	}
	st.Functions = len(funcs)
	return st
}

// Add counts site s in every field but Functions, which counts distinct
// functions over all the sites.
func (st *Counts) Add(s *Site) {
	n := len(s.Func.Params)
	located := 0
	for j := 0; j < n && j < len(s.Params); j++ {
		l := &s.Params[j]
		switch {
		case l.Kind != LocUnavailable:
			located++
		case l.Reason == "":
			st.Missing++
		default:
			st.Unrepresentable++
			if st.Reasons == nil {
				st.Reasons = make(map[string]int)
			}
			st.Reasons[l.Reason]++
		}
	}
	st.AddSite(n, located)
}

// AddSite counts a site with n parameters, located of them located, in
// Sites, Params, Located and the per-site counts (Missing and
// Unrepresentable are the caller's).
func (st *Counts) AddSite(n, located int) {
	st.Sites++
	st.Params += n
	st.Located += located
	switch {
	case n == 0:
		st.NoParams++
	case located == n:
		st.AllLocated++
	case located == 0:
		st.NoneLocated++
	default:
		st.SomeLocated++
	}
}
