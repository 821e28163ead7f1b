package report

// The members' own counters (results.Member's cache, CPU and memory fields,
// from bench --member-stats): the read-hints paper's cache miss rate and CPU
// per node over time (its figs 5, 8 and 14), beside where the reads went, and
// their means in the per-member table (its Table 1's columns).

import (
	"math"
	"slices"

	"github.com/decongestant/decongestant/report/chart"
	"github.com/decongestant/decongestant/results"
)

// classServer is the CSS class of a member's line in the server plots;
// tests count them.
const classServer = "s-server"

// hasServer reports whether m has any server counter.
func hasServer(m results.Member) bool {
	return m.CachePagesRequested != nil || m.CPUPct != nil || m.RSSMB != nil
}

// serverSums accumulates a member's server counters over the measured
// periods.
type serverSums struct {
	// pagesRead and pagesRequested over the periods that have both; mb and
	// mbS the MiB read into the cache and the seconds of the periods that
	// have it.
	pagesRead, pagesRequested int64
	mb, mbS                   float64
	// written and writtenS: the same for the MiB written out of the cache.
	written, writtenS float64
	cpu               mean
	rssMax            float64 // NaN when never known
}

// add adds member m's counters of a period of length seconds.
func (s *serverSums) add(m results.Member, length float64) {
	if m.CachePagesRequested != nil && m.CachePagesRead != nil {
		s.pagesRequested += *m.CachePagesRequested
		s.pagesRead += *m.CachePagesRead
	}
	if m.CacheReadMB != nil {
		s.mb += *m.CacheReadMB
		s.mbS += length
	}
	if m.CacheWrittenMB != nil {
		s.written += *m.CacheWrittenMB
		s.writtenS += length
	}
	if m.CPUPct != nil {
		s.cpu.add(*m.CPUPct)
	}
	if m.RSSMB != nil && (math.IsNaN(s.rssMax) || *m.RSSMB > s.rssMax) {
		s.rssMax = *m.RSSMB
	}
}

// missPct is the cache miss rate over the periods: pages read into the
// cache / pages requested x 100; NaN when nothing was requested.
func (s serverSums) missPct() float64 {
	if s.pagesRequested == 0 {
		return math.NaN()
	}
	return 100 * float64(s.pagesRead) / float64(s.pagesRequested)
}

// readMBps is the MiB read into the cache per second; NaN when unknown.
func (s serverSums) readMBps() float64 {
	if s.mbS <= 0 {
		return math.NaN()
	}
	return s.mb / s.mbS
}

// writtenMBps is the MiB written out of the cache per second; NaN when
// unknown.
func (s serverSums) writtenMBps() float64 {
	if s.writtenS <= 0 {
		return math.NaN()
	}
	return s.written / s.writtenS
}

// writtenColumn follows the cache read rate for runs that measured it.
var writtenColumn = memberColumn{header: "cache written MB/s", get: func(r memberRow) string { return fmtNum(r.server.writtenMBps()) }}

// serverColumns follow memberColumns in the tables of runs whose members
// have server counters.
var serverColumns = []memberColumn{
	{header: "cache miss %", get: func(r memberRow) string { return fmtNum(r.server.missPct()) }},
	{header: "cache read MB/s", get: func(r memberRow) string { return fmtNum(r.server.readMBps()) }},
	{header: "mean CPU %", get: func(r memberRow) string { return fmtNum(r.server.cpu.value()) }},
	{header: "max RSS MB", get: func(r memberRow) string { return fmtNum(r.server.rssMax) }},
}

// columns are mr's table columns: serverColumns too when its members have
// server counters.
func (mr memberRun) columns() []memberColumn {
	if !mr.server {
		return memberColumns
	}
	cols := append(append([]memberColumn(nil), memberColumns...), serverColumns...)
	if mr.written {
		cols = slices.Insert(cols, len(memberColumns)+2, writtenColumn) // after the cache read rate
	}
	return cols
}

// serverPlot is one plot of the members' server counters: a line per
// member.
type serverPlot struct {
	id     string // file base name and data-plot attribute
	what   string // start of the title
	yTitle string
	value  func(m results.Member) *float64
	// yInclude are y values the axis always covers; yCap as chart.Line's.
	yInclude []float64
	yCap     float64
}

// The server plots, in page order, for runs whose members have server
// counters.
var (
	serverMissPlot = serverPlot{id: "member_cache_miss", what: "WiredTiger cache miss rate per member",
		yTitle: "pages read into cache / requested (%)", value: func(m results.Member) *float64 { return m.CacheMissPct },
		yInclude: []float64{0, 100}, yCap: 100}
	serverCPUPlot = serverPlot{id: "member_cpu", what: "CPU per member (user + system)",
		yTitle: "CPU (% of one core)", value: func(m results.Member) *float64 { return m.CPUPct },
		yInclude: []float64{0}}

	serverMemPlot = serverPlot{id: "member_memory", what: "Memory per member (its cgroup's, page cache included; else resident)",
		yTitle: "memory (MB)", value: func(m results.Member) *float64 {
			if m.MemCgroupMB != nil {
				return m.MemCgroupMB
			}
			return m.RSSMB
		},
		yInclude: []float64{0}}

	serverPlots = []serverPlot{serverMissPlot, serverCPUPlot, serverMemPlot}
)

// drawn reports whether some member of mr has a value for p in some
// period (a run without memory caps or member stats draws no empty chart).
func (p serverPlot) drawn(mr memberRun) bool {
	if !mr.server {
		return false
	}
	for _, per := range mr.run.Periods {
		for _, m := range per.Members {
			if p.value(m) != nil {
				return true
			}
		}
	}
	return false
}

// buildServerChart makes plot p for one run of input x: a line per member
// in its colour, broken where the member was not measured (down,
// restarted, nothing requested), over the warm-up band and the phase
// switches and reconfigurations.
func buildServerChart(p serverPlot, x Input, mr memberRun, mpal palette, several bool) *chart.Line {
	c := &chart.Line{
		ID:       p.id,
		Title:    p.what + ": " + mr.name,
		XTitle:   "time since start (s)",
		YTitle:   p.yTitle,
		XInclude: []float64{0},
		YInclude: p.yInclude,
		YCap:     p.yCap,
	}
	if several {
		c.Title += " — " + x.Name
	}
	c.Bands, c.VLines = runMarks(x.Results.Config, 1)
	for i, key := range mr.keys {
		s := chart.Series{Class: classServer, Tip: memberTip(mr, i), Color: mpal.color(key), Width: 2, Opacity: 1}
		s.Points = make([]chart.Point, len(mr.run.Periods))
		for k, per := range mr.run.Periods {
			v := math.NaN()
			if m, ok := memberOf(per, key); ok && p.value(m) != nil {
				v = *p.value(m)
			}
			s.Points[k] = chart.Point{X: per.TS, Y: v}
		}
		c.Series = append(c.Series, s)
		c.Legend = append(c.Legend, chart.LegendItem{Label: mr.label(i), Color: mpal.color(key), Shape: chart.NoMarker})
	}
	return c
}
