// An open-loop load generator for scripts/bench: each of -c keep-alive connections sends GET
// requests on a fixed schedule (together -rate a second), and each latency is measured from when
// the request was due, not from when it was sent, so a stalled server or client is not hidden
// by requests that were never sent (coordinated omission). At a rate every server sustains, the
// percentiles show the server's latency rather than the queue of a load generator running flat
// out on the cores it shares with the server, which is what wrk measures at full speed.
//
//	go run main.go -addr 127.0.0.1:8080 -path /.well-known/apple-app-site-association -c 64 -rate 50000 -d 10s
//
// Prints: achieved rate, p50, p99, p99.9 and the maximum, in milliseconds.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/textproto"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "server address")
	path := flag.String("path", "/", "request path and query")
	userAgent := flag.String("ua", "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0", "User-Agent")
	connections := flag.Int("c", 64, "connections")
	rate := flag.Float64("rate", 50000, "requests a second, all connections together")
	duration := flag.Duration("d", 10*time.Second, "how long to send")
	flag.Parse()

	request := []byte(fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\n\r\n", *path, *addr, *userAgent))
	interval := time.Duration(float64(time.Second) * float64(*connections) / *rate)
	start := time.Now().Add(100 * time.Millisecond)
	end := start.Add(*duration)

	latencies := make([][]time.Duration, *connections)
	var group sync.WaitGroup
	for index := 0; index < *connections; index++ {
		group.Add(1)
		go func(index int) {
			defer group.Done()
			conn, err := net.Dial("tcp", *addr)
			if err != nil {
				log.Fatal(err)
			}
			defer conn.Close()
			reader := bufio.NewReaderSize(conn, 16384)
			// Connections start spread over one interval, so the requests do not come in bursts.
			due := start.Add(interval * time.Duration(index) / time.Duration(*connections))
			for due.Before(end) {
				if wait := time.Until(due); wait > 0 {
					time.Sleep(wait)
				}
				if _, err := conn.Write(request); err != nil {
					log.Fatal(err)
				}
				if err := readResponse(reader); err != nil {
					log.Fatal(err)
				}
				latencies[index] = append(latencies[index], time.Since(due))
				due = due.Add(interval)
			}
		}(index)
	}
	group.Wait()

	var all []time.Duration
	for _, each := range latencies {
		all = append(all, each...)
	}
	if len(all) == 0 {
		log.Fatal("no request completed")
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	percentile := func(p float64) string {
		index := int(p * float64(len(all)-1))
		return strconv.FormatFloat(float64(all[index])/float64(time.Millisecond), 'f', 2, 64)
	}
	fmt.Fprintf(os.Stdout, "%.0f %s %s %s %s\n", float64(len(all))/duration.Seconds(), percentile(0.5), percentile(0.99), percentile(0.999), percentile(1))
}

// readResponse reads one response with a Content-Length body (every response measured has one).
func readResponse(reader *bufio.Reader) error {
	headers := textproto.NewReader(reader)
	status, err := headers.ReadLine()
	if err != nil {
		return err
	}
	if !strings.HasPrefix(status, "HTTP/1.1 ") {
		return fmt.Errorf("unexpected status line %q", status)
	}
	fields, err := headers.ReadMIMEHeader()
	if err != nil {
		return err
	}
	length, err := strconv.Atoi(fields.Get("Content-Length"))
	if err != nil {
		return fmt.Errorf("no Content-Length: %v", err)
	}
	_, err = io.CopyN(io.Discard, reader, int64(length))
	return err
}
