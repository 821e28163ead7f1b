package cluster

import "errors"

// Sentinel errors. Errors returned by this package wrap them, so test with errors.Is.
var (
	// ErrNoMongod means no runnable mongod binary could be found or fetched.
	ErrNoMongod = errors.New("no usable mongod")
	// ErrCgroupUnavailable means a CPU or memory cap was asked for but no writable cgroup with that
	// controller exists; the message says which controller ("cpu cgroup unavailable: ...").
	ErrCgroupUnavailable = errors.New("cgroup unavailable")
	// ErrDirInUse means the cluster dir holds a running cluster or content that is not ours.
	ErrDirInUse = errors.New("cluster dir in use")
	// ErrPortInUse means a member's port is taken by another process.
	ErrPortInUse = errors.New("port in use")
	// ErrNotRunning means there is no cluster in a dir, or a member's process is not running.
	ErrNotRunning = errors.New("not running")
)
