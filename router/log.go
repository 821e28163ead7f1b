package router

import (
	"context"
	"log/slog"
	"math"
	"slices"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/hints"
	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/monitor"
)

// WithLogger sets a structured logger for what the router decides: a
// summary when Connect returns (Info); every period decision (Debug: policy,
// fraction or weights, reason, ratio); the lag turning unknown (Warn) and
// known again (Info); the staleness bound stopping secondary reads (Warn)
// and allowing them again (Info); a per-member policy's member excluded
// (Warn) or included (Info) at a lag poll; a member's read hints switched
// off (Warn) or on (Info); Reweight (Info). Records never carry a
// credential: the URI is logged without its user information and with its
// secret options' values (authMechanismProperties, proxyPassword...)
// redacted. A nil logger, like no WithLogger, logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error { c.logger = l; return nil }
}

// emit reports an event to the log and to the WithEvents callback; called
// without r.mu, after the event was noted. evMu keeps the delivery one event
// at a time, as Event promises.
func (r *Router) emit(e Event, ch change) {
	r.evMu.Lock()
	defer r.evMu.Unlock()
	r.logEvent(e, ch)
	if r.onEvent != nil {
		r.onEvent(e)
	}
}

func (r *Router) logAttrs(level slog.Level, msg string, attrs ...slog.Attr) {
	r.log.LogAttrs(context.Background(), level, msg, attrs...)
}

// logConnected logs the connect summary.
func (r *Router) logConnected(uri string, h *hints.Config) {
	if r.log == nil {
		return
	}
	hs := "off"
	if h != nil {
		hs = h.Name()
	}
	attrs := []slog.Attr{slog.String("uri", redact.URI(uri)), slog.String("policy", r.policy.Name()),
		slog.String("mode", r.sel.Mode.String()), slog.String("latency_source", r.latency.String()),
		slog.Duration("lag_interval", r.lagInterval), slog.String("hints", hs)}
	if iv := r.policy.Interval(); iv > 0 {
		attrs = append(attrs, slog.Duration("period", iv))
	}
	if r.mon != nil {
		lag := r.mon.Last()
		attrs = append(attrs, slog.String("lag_source", r.mon.LagSource().String()),
			slog.String("lag_source_reason", r.mon.LagSourceReason()),
			slog.Bool("lag_known", lag.Known), slog.Int("members", len(lag.Members)))
	}
	attrs = append(attrs, slog.Float64("fraction", r.Fraction()))
	r.logAttrs(slog.LevelInfo, "router connected", attrs...)
}

// logEvent logs a period decision and what a lag poll changed.
func (r *Router) logEvent(e Event, ch change) {
	if r.log == nil {
		return
	}
	switch e.Kind {
	case EventPeriod:
		if !r.log.Enabled(context.Background(), slog.LevelDebug) {
			return
		}
		d := e.Decision
		attrs := []slog.Attr{slog.String("policy", r.policy.Name()), slog.Float64("fraction", e.Fraction),
			slog.Float64("previous", e.Previous), slog.String("reason", d.Reason)}
		if !math.IsNaN(d.Ratio) && !math.IsInf(d.Ratio, 0) {
			attrs = append(attrs, slog.Float64("ratio", d.Ratio))
		}
		if r.pools != nil {
			attrs = append(attrs, slog.String("weights", e.Weights.String()))
		}
		if d.Detail != "" {
			attrs = append(attrs, slog.String("detail", d.Detail))
		}
		r.logAttrs(slog.LevelDebug, "period decision", attrs...)
	case EventLag:
		r.logLag(e, ch)
	}
}

func (r *Router) logLag(e Event, ch change) {
	s := e.Lag
	if ch.lagUnknown {
		attrs := []slog.Attr{slog.String("lag_source", s.Source.String())}
		if s.Err != nil {
			attrs = append(attrs, slog.String("err", s.Err.Error()))
		}
		r.logAttrs(slog.LevelWarn, "lag unknown", attrs...)
	}
	if ch.lagKnown {
		r.logAttrs(slog.LevelInfo, "lag known", slog.String("lag_source", s.Source.String()), slog.Duration("max_lag", s.Max))
	}
	if ch.zeroed {
		attrs := []slog.Attr{slog.Float64("previous", e.Previous), slog.Bool("lag_known", s.Known)}
		if s.Known {
			attrs = append(attrs, slog.Duration("max_lag", s.Max), slog.Duration("horizon", s.Horizon))
		}
		r.logAttrs(slog.LevelWarn, "staleness bound stopped secondary reads", attrs...)
	}
	if ch.restored {
		r.logAttrs(slog.LevelInfo, "staleness bound allows secondary reads", slog.Float64("fraction", e.Fraction),
			slog.Duration("max_lag", s.Max))
	}
	for _, h := range ch.excluded {
		r.logAttrs(slog.LevelWarn, "member excluded", append([]slog.Attr{slog.String("member", h)}, pollAttrs(s, h)...)...)
	}
	for _, h := range ch.included {
		r.logAttrs(slog.LevelInfo, "member included", append([]slog.Attr{slog.String("member", h),
			slog.Float64("weight", e.Weights.Of(h))}, pollAttrs(s, h)...)...)
	}
}

// pollAttrs say what poll s showed of host: its lag, or its state.
func pollAttrs(s monitor.LagSample, host string) []slog.Attr {
	if !s.Known {
		return []slog.Attr{slog.Bool("lag_known", false)}
	}
	i := slices.IndexFunc(s.Members, func(m monitor.MemberLag) bool { return m.Host == host })
	switch {
	case i < 0:
		return []slog.Attr{slog.String("state", "not in the poll")}
	case s.Members[i].Role == 0:
		return []slog.Attr{slog.String("state", s.Members[i].State)}
	}
	return []slog.Attr{slog.Duration("lag", s.Members[i].Lag), slog.String("state", s.Members[i].State)}
}

// logHints logs a member's read hints switched off or on.
func (r *Router) logHints(e hints.Event) {
	if r.log == nil {
		return
	}
	if e.On {
		r.logAttrs(slog.LevelInfo, "read hints on", slog.String("member", e.Host))
		return
	}
	r.logAttrs(slog.LevelWarn, "read hints off", slog.String("member", e.Host), slog.String("why", e.Why))
}

// logReweight logs a weights: policy's new split.
func (r *Router) logReweight(arg string, w balancer.Weights) {
	if r.log == nil {
		return
	}
	r.logAttrs(slog.LevelInfo, "reweighted", slog.String("policy", r.policy.Name()), slog.String("split", arg),
		slog.String("weights", w.String()))
}
