package redis_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/weftmcp/weft/internal/testport"
)

// The Redis the tests use: WEFT_TEST_REDIS, else the default address; if
// nothing answers there, a redis-server the tests start on a free port.
// Without one, the tests fail under CI=true and are skipped elsewhere.
const (
	redisEnv     = "WEFT_TEST_REDIS"
	defaultRedis = "redis://127.0.0.1:6379/15"
)

var (
	redisOptions *goredis.Options // nil when there is no Redis
	noRedis      string           // why, when there is none
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	stop, err := findRedis()
	if err != nil {
		if os.Getenv("CI") == "true" {
			fmt.Fprintf(os.Stderr, "FAIL: the Redis store tests need a Redis and none could be had: %v\n", err)
			return 1
		}
		noRedis = err.Error()
	}
	defer stop()
	return m.Run()
}

// findRedis sets redisOptions to a Redis that answers, starting one if it
// must; stop ends what it started.
func findRedis() (stop func(), err error) {
	stop = func() {}
	url := os.Getenv(redisEnv)
	if url == "" {
		url = defaultRedis
	}
	opts, err := goredis.ParseURL(url)
	if err != nil {
		return stop, fmt.Errorf("%s=%q is not a Redis URL: %w", redisEnv, url, err)
	}
	if ping(opts) == nil {
		redisOptions = opts
		return stop, nil
	}
	server, err := exec.LookPath("redis-server")
	if err != nil {
		return stop, fmt.Errorf("no Redis answers at %s and redis-server is not installed "+
			"(install it, start a Redis, or set %s)", url, redisEnv)
	}
	opts, stop, err = startRedis(server)
	redisOptions = opts
	return stop, err
}

// ping checks that a Redis answers.
func ping(opts *goredis.Options) error {
	c := goredis.NewClient(opts)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return c.Ping(ctx).Err()
}

// startRedis starts a throwaway redis-server on a free loopback port that
// keeps nothing on disk, waits until it says it is ready, and returns the
// options to reach it and the function that ends it.
func startRedis(server string) (*goredis.Options, func(), error) {
	port, err := testport.Free()
	if err != nil {
		return nil, func() {}, err
	}
	dir, err := os.MkdirTemp("", "weft-redis-")
	if err != nil {
		return nil, func() {}, err
	}
	cmd := exec.Command(server, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--logfile", "")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, func() {}, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, func() {}, fmt.Errorf("starting %s: %w", server, err)
	}
	stop := func() {
		cmd.Process.Kill()
		cmd.Wait()
		os.RemoveAll(dir)
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Ready to accept connections") {
				ready <- true
				break
			}
		}
		ready <- false
		for sc.Scan() { // keep draining so the server never blocks on its log
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			stop()
			return nil, func() {}, fmt.Errorf("%s exited before it was ready", server)
		}
	case <-time.After(time.Minute):
		stop()
		return nil, func() {}, fmt.Errorf("%s did not say it was ready to accept connections within a minute", server)
	}
	return &goredis.Options{Addr: "127.0.0.1:" + port}, stop, nil
}

// needRedis skips the test when there is no Redis (outside CI).
func needRedis(t testing.TB) {
	t.Helper()
	if redisOptions == nil {
		t.Skipf("skipping: %s", noRedis)
	}
}

// newClient returns a client on the test Redis, closed when the test ends.
func newClient(t testing.TB) *goredis.Client {
	t.Helper()
	needRedis(t)
	opts := *redisOptions
	c := goredis.NewClient(&opts)
	t.Cleanup(func() { c.Close() })
	return c
}

// newPrefix returns a key prefix no other test uses, whose keys are
// deleted when the test ends.
func newPrefix(t testing.TB) string {
	t.Helper()
	prefix := "weft-test-" + rand.Text()
	c := newClient(t)
	t.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, "{"+prefix+"}:*", 1000).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
		if err := iter.Err(); err != nil {
			t.Errorf("deleting the test's keys: %v", err)
		}
	})
	return prefix
}
