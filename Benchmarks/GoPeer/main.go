// A link-domain server in Go's standard library, for scripts/bench to measure beside LinkDomain
// and nginx: the same association bytes (read once at start) and the same redirects, each
// answered as a stdlib net/http server does.
//
//	go run main.go -addr 127.0.0.1:8081 -aasa aasa.json -redirect '/__/auth/links=303=https://...' ...
package main

import (
	"flag"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
)

type redirects []string

func (r *redirects) String() string     { return strings.Join(*r, ",") }
func (r *redirects) Set(v string) error { *r = append(*r, v); return nil }

func main() {
	addr := flag.String("addr", "127.0.0.1:8081", "listen address")
	aasaPath := flag.String("aasa", "", "the apple-app-site-association bytes to serve")
	var rules redirects
	flag.Var(&rules, "redirect", "PATH=STATUS=LOCATION, repeatable")
	flag.Parse()

	aasa, err := os.ReadFile(*aasaPath)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/apple-app-site-association", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "public, max-age=3600")
		h.Set("Content-Length", strconv.Itoa(len(aasa)))
		w.Write(aasa)
	})
	for _, rule := range rules {
		parts := strings.SplitN(rule, "=", 3)
		if len(parts) != 3 {
			log.Fatalf("bad -redirect %q", rule)
		}
		status, err := strconv.Atoi(parts[1])
		if err != nil {
			log.Fatal(err)
		}
		location := parts[2]
		mux.HandleFunc(parts[0], func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != parts[0] {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Cache-Control", "no-store")
			http.Redirect(w, r, location, status)
		})
	}
	log.Fatal(http.ListenAndServe(*addr, mux))
}
