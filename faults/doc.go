// Package faults applies fault actions to a local replica set during a run:
// pause or resume replication on a member, isolate it, slow its reads (a
// gray failure), step the primary down, kill, stop or restart a member. A run hands each step's actions to a Runner,
// which applies them in order on a goroutine of its own, records every
// start and outcome as an event, and at Finish restores what the run left
// (members down, replication paused, reads slowed) and waits for a healthy
// set.
//
//	steps, err := faults.ParseSchedule("30s:stepdown;50s:kill=primary;80s:restart=primary")
//	r := faults.Start(ctx, cl, len(steps), time.Now(), record, os.Stderr, "run")
//	// at each step's time: r.Enqueue(step.Actions)
//	err = r.Finish(ctx)
package faults
