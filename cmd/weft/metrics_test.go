package main

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/rogpeppe/go-internal/testscript"
)

// scrapeTimeout bounds how long scrape waits for a series to reach its
// count: a task's final status is counted just after it is stored, so a
// client that saw it may scrape a moment before the count.
const scrapeTimeout = 60 * time.Second

// cmdScrape is "scrape URL NAME [LABEL=VALUE...] COUNT": it fetches URL
// (a /metrics endpoint), parses it as Prometheus text format with the
// Prometheus parser, and checks that the one series of family NAME
// carrying every LABEL=VALUE given has COUNT as its value (a counter or
// gauge) or its sample count (a histogram), scraping again until it does
// or scrapeTimeout passes. With !, no such series may exist (one scrape).
func cmdScrape(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || (!neg && len(args) < 3) {
		ts.Fatalf("usage: scrape URL NAME [LABEL=VALUE...] COUNT")
	}
	url, name, labels := args[0], args[1], args[2:]
	series := name + "{" + strings.Join(labels, ",") + "}"
	if neg {
		if found, _ := scrape(ts, url, name, labels); len(found) > 0 {
			ts.Fatalf("scrape: %s has %s = %v, want no such series", url, series, found)
		}
		return
	}
	want := labels[len(labels)-1]
	labels = labels[:len(labels)-1]
	series = name + "{" + strings.Join(labels, ",") + "}"
	deadline := time.Now().Add(scrapeTimeout)
	for {
		found, families := scrape(ts, url, name, labels)
		if len(found) == 1 && found[0] == want {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("scrape: %s has %s = %v after %v, want one series of %s; families: %s", url, series, found, scrapeTimeout, want, families)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// scrape fetches and parses the metrics at url and returns the values of
// the series of family name carrying labels, and the names of the families.
func scrape(ts *testscript.TestScript, url, name string, labels []string) ([]string, string) {
	resp, err := (&http.Client{Timeout: scrapeTimeout}).Get(url)
	if err != nil {
		ts.Fatalf("scrape: GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		ts.Fatalf("scrape: GET %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		ts.Fatalf("scrape: %s is not Prometheus text format: %v", url, err)
	}
	var found []string
	if family := families[name]; family != nil {
		for _, m := range family.Metric {
			if hasLabels(m, labels) {
				found = append(found, seriesValue(family.GetType(), m))
			}
		}
	}
	return found, familyNames(families)
}

// hasLabels reports whether m carries every LABEL=VALUE of labels.
func hasLabels(m *dto.Metric, labels []string) bool {
	have := map[string]string{}
	for _, l := range m.GetLabel() {
		have[l.GetName()] = l.GetValue()
	}
	for _, kv := range labels {
		k, v, _ := strings.Cut(kv, "=")
		if have[k] != v {
			return false
		}
	}
	return true
}

// seriesValue is a series' value as scrape compares it.
func seriesValue(t dto.MetricType, m *dto.Metric) string {
	switch t {
	case dto.MetricType_HISTOGRAM:
		return strconv.FormatUint(m.GetHistogram().GetSampleCount(), 10)
	case dto.MetricType_COUNTER:
		return strconv.FormatFloat(m.GetCounter().GetValue(), 'g', -1, 64)
	case dto.MetricType_GAUGE:
		return strconv.FormatFloat(m.GetGauge().GetValue(), 'g', -1, 64)
	}
	return fmt.Sprintf("(a %v)", t)
}

// familyNames lists the metric families scraped, for a failure message.
func familyNames(families map[string]*dto.MetricFamily) string {
	names := make([]string, 0, len(families))
	for n := range families {
		names = append(names, n)
	}
	return strings.Join(names, " ")
}
