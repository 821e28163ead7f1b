package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/decongestant/decongestant/report/chart"
)

// writeMembersHTML writes the per-member section of input i (one client
// count of a sweep): per run that records its members, the share of reads
// each member served, the weights the policy gave them when it routes per
// member, and a table of the periods after warm-up. Nothing for inputs
// written before per-member routing.
func writeMembersHTML(b *strings.Builder, i int, x Input, pal, mpal palette, several bool) {
	runs := memberRuns(x)
	if len(runs) == 0 {
		return
	}
	fmt.Fprintf(b, "<section class=\"members\" id=\"members-%d\">\n", i)
	b.WriteString("<h2>Per-member routing")
	if several {
		b.WriteString(": " + esc(x.Name))
	}
	b.WriteString("</h2>\n")
	b.WriteString(`<p class="note">Per run, stacked: the share of each period's routed reads every member served and, ` +
		`for policies that route per member, the weight the policy gave it at the period end (intent against what ` +
		`was served). A colour is a member, the same in every plot; a label lists the member's roles when they changed. ` +
		`Tables: periods after warm-up; latencies are means of the per-period values over the periods the member ` +
		`served reads in; server = wire P50 − min RTT. “No reads in k of n periods as secondary”: periods in which ` +
		`other secondaries served reads and this one none (marked when the policy had not given it weight 0: a ` +
		`secondary the driver dropped).</p>` + "\n")
	if slices.ContainsFunc(runs, func(mr memberRun) bool { return mr.server }) {
		b.WriteString(`<p class="note">Runs with member stats (bench --member-stats) also plot each member's ` +
			`WiredTiger cache miss rate (pages read into the cache / pages requested from it, in the period) and CPU ` +
			`(user + system, % of one core), a line per member, broken where it was not measured (not answering, ` +
			`restarted, or nothing requested). Their tables add the miss rate and MB read into the cache per second ` +
			`over the periods after warm-up, the mean CPU and the largest resident set.</p>` + "\n")
	}
	for _, mr := range runs {
		writeMemberRunHTML(b, x, mr, pal, mpal, several)
	}
	b.WriteString("</section>\n")
}

// writeMemberRunHTML writes one run's plots and table.
func writeMemberRunHTML(b *strings.Builder, x Input, mr memberRun, pal, mpal palette, several bool) {
	fmt.Fprintf(b, `<h3><span class="sw" style="background:%s"></span>%s</h3>`+"\n", esc(pal.color(mr.run.Policy)), esc(mr.name))
	for _, p := range memberPlots {
		if p.drawn(mr) {
			b.WriteString(string(chart.HTML(buildMemberChart(p, x, mr, mpal, several))))
		}
	}
	for _, p := range serverPlots {
		if p.drawn(mr) {
			b.WriteString(string(chart.HTML(buildServerChart(p, x, mr, mpal, several))))
		}
	}
	if mr.measured == 0 {
		b.WriteString("<p class=\"note\">No period after the warm-up.</p>\n")
	}
	notes := mr.hasNotes()
	b.WriteString("<div class=\"scroll\"><table class=\"members\">\n<thead><tr><th class=\"l\">member</th>")
	cols := mr.columns()
	for _, c := range cols {
		fmt.Fprintf(b, "<th%s>%s</th>", leftClass(c.left), esc(c.header))
	}
	if notes {
		b.WriteString(`<th class="l">note</th>`)
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range mr.rows {
		writeMemberRowHTML(b, r, cols, mpal, notes)
	}
	b.WriteString("</tbody>\n</table></div>\n")
}

// writeMemberRowHTML writes one member's row: its name with its host below,
// the columns, and with notes the note (marked when the member was dropped).
func writeMemberRowHTML(b *strings.Builder, r memberRow, cols []memberColumn, mpal palette, notes bool) {
	fmt.Fprintf(b, `<tr><td class="l"><span class="sw" style="background:%s"></span>%s`, esc(mpal.color(r.key)), esc(r.key))
	if r.host != "" && r.host != r.key {
		fmt.Fprintf(b, `<span class="sd">%s</span>`, esc(r.host))
	}
	b.WriteString("</td>")
	for _, c := range cols {
		cls := ` class="n"`
		if c.left {
			cls = leftClass(true)
		}
		fmt.Fprintf(b, "<td%s>%s</td>", cls, esc(c.get(r)))
	}
	if notes {
		note := esc(idleNote(r))
		if r.dropped() {
			note = `<span class="warn">` + note + `</span>`
		}
		fmt.Fprintf(b, `<td class="l">%s</td>`, note)
	}
	b.WriteString("</tr>\n")
}

func leftClass(left bool) string {
	if left {
		return ` class="l"`
	}
	return ""
}
