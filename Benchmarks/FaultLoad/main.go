// The steady load of scripts/faults: an open-loop generator that keeps sending while a fault
// happens and says, second by second, what it sent and what came back. Each of -c keep-alive
// connections sends GET requests on a fixed schedule (together -rate a second); latency is
// measured from when a request was due, so a stalled server is not hidden by requests never sent.
// A connection that fails is counted and dialled again for the next request; the schedule goes on.
//
//	go run main.go -addr 127.0.0.1:8080 -path /abc -path /.well-known/apple-app-site-association -c 16 -rate 500 -d 30s
//
// Paths are taken in turn. In a path or -ua, {n} becomes a number no other request of the run
// used (a flood of unique suffixes, paths or user agents). -rate 0 sends as fast as the server
// answers (a closed loop: what the server can take).
//
// Prints one JSON line a second ({"t", "sent", "status": {"302": n}, "errors": {"reset": n},
// "p50", "p99", "max"} in milliseconds) and a last line with "total": true for the whole run.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

type paths []string

func (p *paths) String() string     { return strings.Join(*p, ",") }
func (p *paths) Set(v string) error { *p = append(*p, v); return nil }

// window collects one second (or the whole run) of outcomes. Latencies are counted by value
// rounded to three significant digits (in microseconds): a histogram whose size does not grow
// with the run, so a long run's totals cost the generator no growing copies (which stalled it).
type window struct {
	sent      int
	status    map[string]int
	errors    map[string]int
	latencies map[int64]int
}

func newWindow() *window {
	return &window{status: map[string]int{}, errors: map[string]int{}, latencies: map[int64]int{}}
}

func rounded(latency time.Duration) int64 {
	value, scale := latency.Microseconds(), int64(1)
	for value >= 1000 {
		value /= 10
		scale *= 10
	}
	return value * scale
}

func (w *window) merge(o *window) {
	w.sent += o.sent
	for k, v := range o.status {
		w.status[k] += v
	}
	for k, v := range o.errors {
		w.errors[k] += v
	}
	for k, v := range o.latencies {
		w.latencies[k] += v
	}
}

func (w *window) report(t float64, total bool) map[string]any {
	values, count := make([]int64, 0, len(w.latencies)), 0
	for value, n := range w.latencies {
		values = append(values, value)
		count += n
	}
	sort.Slice(values, func(i, j int) bool { return values[i] < values[j] })
	ms := func(p float64) float64 {
		rank, seen := int(p*float64(count-1)), 0
		for _, value := range values {
			seen += w.latencies[value]
			if seen > rank {
				return float64(value) / 1000
			}
		}
		return 0
	}
	line := map[string]any{"t": t, "sent": w.sent, "status": w.status, "errors": w.errors,
		"p50": ms(0.5), "p99": ms(0.99), "max": ms(1)}
	if total {
		line["total"] = true
		line["p999"] = ms(0.999)
	}
	return line
}

func classify(err error) string {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "closed"
	}
	var timeout net.Error
	if errors.As(err, &timeout) && timeout.Timeout() {
		return "timeout"
	}
	return "other"
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "server address")
	var list paths
	flag.Var(&list, "path", "request path and query (repeat to take several in turn)")
	userAgent := flag.String("ua", "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0", "User-Agent")
	connections := flag.Int("c", 16, "connections")
	rate := flag.Float64("rate", 500, "requests a second, all connections together; 0: as fast as answered")
	duration := flag.Duration("d", 10*time.Second, "how long to send")
	timeout := flag.Duration("timeout", 10*time.Second, "how long one request may take")
	flag.Parse()
	if len(list) == 0 {
		list = paths{"/"}
	}

	var unique atomic.Int64
	expand := func(s string) string {
		if !strings.Contains(s, "{n}") {
			return s
		}
		return strings.ReplaceAll(s, "{n}", strconv.FormatInt(unique.Add(1), 36))
	}

	var mutex sync.Mutex
	current := newWindow()
	whole := newWindow()
	record := func(status string, failure string, latency time.Duration) {
		mutex.Lock()
		defer mutex.Unlock()
		current.sent++
		if failure != "" {
			current.errors[failure]++
		} else {
			current.status[status]++
			current.latencies[rounded(latency)]++
		}
	}

	start := time.Now().Add(100 * time.Millisecond)
	end := start.Add(*duration)
	var interval time.Duration
	if *rate > 0 {
		interval = time.Duration(float64(time.Second) * float64(*connections) / *rate)
	}
	encoder := json.NewEncoder(os.Stdout)
	done := make(chan struct{})
	var reporter sync.WaitGroup
	reporter.Add(1)
	go func() {
		defer reporter.Done()
		ticker := time.NewTicker(time.Second)
		defer ticker.Stop()
		for {
			select {
			case now := <-ticker.C:
				mutex.Lock()
				finished := current
				current = newWindow()
				mutex.Unlock()
				whole.merge(finished)
				_ = encoder.Encode(finished.report(now.Sub(start).Seconds(), false))
			case <-done:
				return
			}
		}
	}()

	var group sync.WaitGroup
	var next atomic.Int64
	for index := 0; index < *connections; index++ {
		group.Add(1)
		go func(index int) {
			defer group.Done()
			var conn net.Conn
			var reader *bufio.Reader
			due := start
			if interval > 0 {
				due = start.Add(interval * time.Duration(index) / time.Duration(*connections))
			}
			for due.Before(end) {
				if wait := time.Until(due); wait > 0 {
					time.Sleep(wait)
				} else if interval == 0 {
					due = time.Now()
				}
				path := expand(list[int(next.Add(1))%len(list)])
				status, failure := "", ""
				if conn == nil {
					var err error
					conn, err = net.DialTimeout("tcp", *addr, *timeout)
					if err != nil {
						conn = nil
						failure = classify(err)
						if interval == 0 {
							time.Sleep(10 * time.Millisecond) // a closed loop must not spin on a refused port
						}
					} else {
						reader = bufio.NewReaderSize(conn, 16384)
					}
				}
				if conn != nil {
					_ = conn.SetDeadline(time.Now().Add(*timeout))
					request := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\n\r\n", path, *addr, expand(*userAgent))
					response, err := func() (*http.Response, error) {
						if _, err := conn.Write([]byte(request)); err != nil {
							return nil, err
						}
						response, err := http.ReadResponse(reader, nil)
						if err != nil {
							return nil, err
						}
						_, err = io.Copy(io.Discard, response.Body)
						response.Body.Close()
						return response, err
					}()
					if err != nil {
						failure = classify(err)
						conn.Close()
						conn = nil
					} else {
						status = strconv.Itoa(response.StatusCode)
						if response.Close {
							conn.Close()
							conn = nil
						}
					}
				}
				record(status, failure, time.Since(due))
				if interval > 0 {
					due = due.Add(interval)
				}
			}
			if conn != nil {
				conn.Close()
			}
		}(index)
	}
	group.Wait()
	close(done)
	reporter.Wait()
	mutex.Lock()
	whole.merge(current)
	mutex.Unlock()
	_ = encoder.Encode(whole.report(time.Since(start).Seconds(), true))
}
