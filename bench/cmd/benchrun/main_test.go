package main

import (
	"slices"
	"testing"
)

func names(impls []implementation) []string {
	var out []string
	for _, i := range impls {
		out = append(out, i.Name)
	}
	return out
}

func TestSelectImplementationsKeepsTableOrder(t *testing.T) {
	got, err := selectImplementations("bare,gosdk")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"gosdk", "bare"}; !slices.Equal(names(got), want) {
		t.Errorf("selected %v, want %v", names(got), want)
	}
	if _, err := selectImplementations("bare,nope"); err == nil {
		t.Error("an unknown implementation was accepted")
	}
}

func TestRotateGivesEveryImplementationItsTurnFirst(t *testing.T) {
	impls := implementations()
	var firsts []string
	for round := range len(impls) {
		order := rotate(impls, round)
		if len(order) != len(impls) {
			t.Fatalf("round %d runs %v", round, names(order))
		}
		firsts = append(firsts, order[0].Name)
	}
	slices.Sort(firsts)
	all := names(impls)
	slices.Sort(all)
	if !slices.Equal(firsts, all) {
		t.Errorf("first in each round: %v, want each of %v once", firsts, all)
	}
}
