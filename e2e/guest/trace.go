//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// traceEvent is what tracecheck reads of one line of btfinline trace --json.
type traceEvent struct {
	Func        string                     `json:"func"`
	Event       string                     `json:"event"`
	Place       string                     `json:"place"`
	Args        map[string]json.RawMessage `json:"args"`
	Unavailable map[string]string          `json:"unavailable"`
}

// flatten turns the event's arguments into printk keys: p->a is p_a, a
// member lo of a struct w is w_lo. ok is false for a null (unavailable or
// faulted) value.
func flatten(prefix string, raw json.RawMessage, out map[string]*uint64) error {
	key := strings.NewReplacer("->", "_", ".", "_").Replace(prefix)
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return err
	}
	switch x := v.(type) {
	case nil:
		out[key] = nil
	case json.Number:
		u, err := strconv.ParseUint(x.String(), 10, 64)
		if err != nil {
			i, err := strconv.ParseInt(x.String(), 10, 64)
			if err != nil {
				return fmt.Errorf("%s: %v", prefix, err)
			}
			u = uint64(i)
		}
		out[key] = &u
	case string:
		u, err := strconv.ParseUint(strings.TrimPrefix(x, "0x"), 16, 64)
		if err != nil {
			return fmt.Errorf("%s: %q is not a hex value", prefix, x)
		}
		out[key] = &u
	case bool:
		u := uint64(0)
		if x {
			u = 1
		}
		out[key] = &u
	case map[string]any:
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		for k, r := range m {
			if err := flatten(prefix+"."+k, r, out); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%s: unexpected %T", prefix, v)
	}
	return nil
}

// traceResult counts what tracecheck saw.
type traceResult struct {
	functions, events, refs, checked, matched, mismatched, unavailable, extra, missing int
}

// tracecheck pairs the k-th event of each function with the k-th printk
// line of that function (one event per call: the counts must be equal)
// and compares every value the module printed with the traced one.
func tracecheck(w io.Writer, events io.Reader, dmesg []string) (traceResult, error) {
	var res traceResult
	byFunc := map[string][]traceEvent{}
	sc := bufio.NewScanner(events)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	perPlace := map[string]int{}
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e traceEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return res, fmt.Errorf("event %q: %v", sc.Text(), err)
		}
		if e.Func == "" {
			continue // a count or summary object
		}
		byFunc[e.Func] = append(byFunc[e.Func], e)
		perPlace[e.Func+" "+e.Place]++
		res.events++
	}
	if err := sc.Err(); err != nil {
		return res, err
	}
	refs := map[string][]string{}
	for _, l := range dmesg {
		if m := refRE.FindStringSubmatch(l); m != nil {
			refs[m[1]] = append(refs[m[1]], m[2])
			res.refs++
		}
	}
	var fns []string
	for f := range byFunc {
		fns = append(fns, f)
	}
	for f := range refs {
		if _, ok := byFunc[f]; !ok {
			fns = append(fns, f)
		}
	}
	sort.Strings(fns)
	res.functions = len(fns)
	for _, fn := range fns {
		evs, rs := byFunc[fn], refs[fn]
		if len(evs) != len(rs) {
			fmt.Fprintf(w, "E2E TRACE-COUNT %s: %d events for %d calls\n", fn, len(evs), len(rs))
			if len(evs) > len(rs) {
				res.extra += len(evs) - len(rs)
			} else {
				res.missing += len(rs) - len(evs)
			}
		}
		for k := 0; k < len(evs) && k < len(rs); k++ {
			e := evs[k]
			got := map[string]*uint64{}
			for name, raw := range e.Args {
				if err := flatten(name, raw, got); err != nil {
					return res, fmt.Errorf("%s event %d: %v", fn, k, err)
				}
			}
			for _, r := range fields(rs[k]) {
				v, fetched := got[r.key]
				if !fetched && r.optional {
					continue
				}
				if !fetched || v == nil {
					res.unavailable++
					fmt.Fprintf(w, "E2E trace-unavailable %s %s %s %s\n", fn, e.Event, e.Place, r.key)
					continue
				}
				res.checked++
				want, err := strconv.ParseUint(strings.TrimPrefix(r.val, "0x"), 16, 64)
				if err == nil && want == *v {
					res.matched++
					continue
				}
				res.mismatched++
				fmt.Fprintf(w, "E2E TRACE-MISMATCH %s %s %s %s: traced %#x, printk %s\n", fn, e.Event, e.Place, r.key, *v, r.val)
			}
		}
	}
	var places []string
	for p := range perPlace {
		places = append(places, p)
	}
	sort.Strings(places)
	for _, p := range places {
		fmt.Fprintf(w, "E2E trace-hits %s %d\n", p, perPlace[p])
	}
	fmt.Fprintf(w, "E2E trace summary functions=%d places=%d events=%d calls=%d checked=%d matched=%d mismatched=%d unavailable=%d extra=%d missing=%d\n",
		res.functions, len(places), res.events, res.refs, res.checked, res.matched, res.mismatched, res.unavailable, res.extra, res.missing)
	return res, nil
}

// tracecheckCmd EVENTS DMESG
func tracecheckCmd(args []string) error {
	if len(args) != 2 {
		return errors.New("usage: tracecheck EVENTS.json DMESG")
	}
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	lines, err := readLines(args[1])
	if err != nil {
		return err
	}
	_, err = tracecheck(os.Stdout, f, lines)
	return err
}

// readProfile parses tracefs kprobe_profile: "EVENT NHIT NMISSED" per line.
func readProfile(path string) (map[string][2]uint64, error) {
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	out := map[string][2]uint64{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) != 3 {
			return nil, fmt.Errorf("%s: bad line %q", path, l)
		}
		hit, err1 := strconv.ParseUint(f[1], 10, 64)
		miss, err2 := strconv.ParseUint(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: bad line %q", path, l)
		}
		out[f[0]] = [2]uint64{hit, miss}
	}
	return out, nil
}

// countcheckCmd PROFILE0 PROFILE1 COUNTS.json: the per-place hits btfinline
// trace --count --json counted equal kprobe_profile's nhit differences for
// the kprobe_events at the same places (event names are resolve's).
func countcheckCmd(args []string) error {
	if len(args) != 3 {
		return errors.New("usage: countcheck PROFILE0 PROFILE1 COUNTS.json")
	}
	p0, err := readProfile(args[0])
	if err != nil {
		return err
	}
	p1, err := readProfile(args[1])
	if err != nil {
		return err
	}
	b, err := os.ReadFile(args[2])
	if err != nil {
		return err
	}
	var counts struct {
		Total  uint64 `json:"total"`
		Places []struct {
			Event string `json:"event"`
			Place string `json:"place"`
			Hits  uint64 `json:"hits"`
		} `json:"places"`
	}
	// The last JSON object of the file is the final count.
	objs := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if err := json.Unmarshal(objs[len(objs)-1], &counts); err != nil {
		return fmt.Errorf("%s: %v", args[2], err)
	}
	_, err = countcheck(os.Stdout, p0, p1, counts.Places)
	return err
}

type placeCount = struct {
	Event string `json:"event"`
	Place string `json:"place"`
	Hits  uint64 `json:"hits"`
}

type countResult struct{ places, equal, differ, onlyOurs, onlyKernel, hitPlaces int }

func countcheck(w io.Writer, p0, p1 map[string][2]uint64, ours []placeCount) (countResult, error) {
	var r countResult
	var oursTotal, theirsTotal, missed uint64
	seen := map[string]bool{}
	for _, p := range ours {
		seen[p.Event] = true
		a, ok1 := p0[p.Event]
		b, ok2 := p1[p.Event]
		if !ok1 || !ok2 {
			r.onlyOurs++
			fmt.Fprintf(w, "E2E count-only-ours %s %s %d\n", p.Event, p.Place, p.Hits)
			continue
		}
		r.places++
		theirs := b[0] - a[0]
		missed += b[1] - a[1]
		oursTotal += p.Hits
		theirsTotal += theirs
		if p.Hits > 0 {
			r.hitPlaces++
		}
		if theirs == p.Hits {
			r.equal++
			continue
		}
		r.differ++
		fmt.Fprintf(w, "E2E COUNT-DIFFER %s %s: btfinline trace %d, kprobe_profile %d\n", p.Event, p.Place, p.Hits, theirs)
	}
	for ev := range p1 {
		if !seen[ev] {
			r.onlyKernel++
		}
	}
	fmt.Fprintf(w, "E2E count summary places=%d hit=%d equal=%d differ=%d only-btfinline=%d only-kprobe_events=%d hits btfinline=%d kprobe_profile=%d nmissed=%d\n",
		r.places, r.hitPlaces, r.equal, r.differ, r.onlyOurs, r.onlyKernel, oursTotal, theirsTotal, missed)
	return r, nil
}
