package cluster

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
)

// choosePorts returns n ports: base, base+1, ... checked to be free, or with base 0 n distinct
// ports the kernel reports free (another process may still take one before mongod binds it).
func choosePorts(base, n int) ([]int, error) {
	ports := make([]int, 0, n)
	if base == 0 {
		var ls []net.Listener
		defer func() {
			for _, l := range ls {
				l.Close()
			}
		}()
		for range n {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return nil, fmt.Errorf("pick a free port: %w", err)
			}
			ls = append(ls, l)
			ports = append(ports, l.Addr().(*net.TCPAddr).Port)
		}
		return ports, nil
	}
	for i := range n {
		port := base + i
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("%w: port %d (member n%d): %w", ErrPortInUse, port, i+1, err)
		}
		if err != nil {
			return nil, fmt.Errorf("port %d (member n%d): %w", port, i+1, err)
		}
		l.Close()
		ports = append(ports, port)
	}
	return ports, nil
}
