package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/weftmcp/weft/bench/internal/mcpwire"
)

// Transports the rows use.
const (
	transportStdio = "stdio"
	transportHTTP  = "http"
)

// cell is the transport and load of a row.
type cell struct {
	Transport string
	InFlight  int
}

// String names the cell in logs and tables.
func (c cell) String() string { return fmt.Sprintf("%s, %d in flight", c.Transport, c.InFlight) }

// cells lists the cells in report order.
func cells() []cell {
	return []cell{
		{transportStdio, 1}, {transportStdio, 32},
		{transportHTTP, 1}, {transportHTTP, 32},
	}
}

// section is a part of the run, and of the report, that -rows selects.
type section string

// The sections, in the order they run and are reported.
const (
	// sectionEcho: plain echo calls on every implementation.
	sectionEcho section = "echo"
	// sectionTasks: the task life on every store and surface.
	sectionTasks section = "tasks"
	// sectionModern: weft's echo calls in the modern era, each request
	// carrying its version and capabilities in _meta, with no session.
	sectionModern section = "modern"
	// sectionOTel: echo calls on weft with OpenTelemetry tracing.
	sectionOTel section = "otel"
	// sectionSharedSessions: echo calls on weft with legacy sessions kept
	// in a shared store.
	sectionSharedSessions section = "sessions"
	// sectionIdle: memory per idle legacy HTTP session.
	sectionIdle section = "idle"
)

// sections lists every section in order.
func sections() []section {
	return []section{sectionEcho, sectionTasks, sectionModern, sectionOTel, sectionSharedSessions, sectionIdle}
}

// rowKey names one row: what one fresh server process serves in a round.
type rowKey struct {
	Section section
	Impl    string
	// Variant names a variant's row; "" for the implementation's own.
	Variant string `json:",omitempty"`
	// Store is the store of a task life or a variant's; "" for none.
	Store string `json:",omitempty"`
	// Surface is the task surface of a task life.
	Surface mcpwire.Surface `json:",omitempty"`
	// Cell is the transport and load (none for an idle-session row).
	Cell cell
}

// modern reports whether the row's client speaks the modern era (no
// handshake, _meta on every request): the extension surface's task lives
// and the modern echo rows.
func (k rowKey) modern() bool {
	return k.Surface == mcpwire.ExtensionTasks || k.Section == sectionModern
}

// String names the row in logs and errors.
func (k rowKey) String() string {
	parts := []string{string(k.Section), k.Impl}
	if k.Variant != "" {
		parts[1] = k.Variant
	}
	if k.Store != "" {
		parts = append(parts, "store "+k.Store)
	}
	if k.Surface != "" {
		parts = append(parts, string(k.Surface)+" tasks")
	}
	if k.Section != sectionIdle {
		parts = append(parts, k.Cell.String())
	}
	return strings.Join(parts, ", ")
}

// selection is what a run measures: -only, -rows and -store.
type selection struct {
	Impls    []implementation
	Sections []section
	Stores   []string
}

// plan lists the rows of one round in the order they run. Each section
// goes cell by cell, and within a cell the implementations take turns in an
// order that rotates with the round, so no implementation always goes
// first. A row that needs a store not selected is left out.
func (sel selection) plan(round int) []rowKey {
	var rows []rowKey
	order := rotate(sel.Impls, round)
	for _, s := range sel.Sections {
		if s == sectionIdle {
			for _, impl := range order {
				if !impl.StdioOnly {
					rows = append(rows, rowKey{Section: s, Impl: impl.Name})
				}
			}
			continue
		}
		for _, c := range cells() {
			for _, impl := range order {
				rows = append(rows, sel.rowsOf(impl, s, c)...)
			}
		}
	}
	return rows
}

// rowsOf lists impl's rows of section s in cell c.
func (sel selection) rowsOf(impl implementation, s section, c cell) []rowKey {
	if impl.StdioOnly && c.Transport != transportStdio {
		return nil
	}
	base := rowKey{Section: s, Impl: impl.Name, Cell: c}
	var rows []rowKey
	switch s {
	case sectionEcho:
		rows = append(rows, base)
	case sectionTasks:
		for _, store := range impl.TaskStores {
			if !slices.Contains(sel.Stores, store) {
				continue
			}
			for _, surface := range impl.TaskSurfaces {
				k := base
				k.Store, k.Surface = store, surface
				rows = append(rows, k)
			}
		}
	default:
		for _, v := range impl.Variants {
			if v.Section != s || (v.HTTPOnly && c.Transport != transportHTTP) || (v.Store != "" && !slices.Contains(sel.Stores, v.Store)) {
				continue
			}
			k := base
			k.Variant, k.Store = v.Name, v.Store
			rows = append(rows, k)
		}
	}
	return rows
}

// variant returns the variant of impl named name.
func (impl implementation) variant(name string) (variant, bool) {
	i := slices.IndexFunc(impl.Variants, func(v variant) bool { return v.Name == name })
	if i < 0 {
		return variant{}, false
	}
	return impl.Variants[i], true
}

// selectImplementations returns the implementations named in only (comma
// separated), in table order, or all of them if only is empty.
func selectImplementations(only string) ([]implementation, error) {
	all := implementations()
	if only == "" {
		return all, nil
	}
	wanted := strings.Split(only, ",")
	for _, name := range wanted {
		if !slices.ContainsFunc(all, func(i implementation) bool { return i.Name == name }) {
			return nil, fmt.Errorf("-only names %q, which is not an implementation", name)
		}
	}
	return slices.DeleteFunc(all, func(i implementation) bool { return !slices.Contains(wanted, i.Name) }), nil
}

// parseList splits a comma-separated flag value into known names, in the
// order of known; "" means all of them. what names the flag in errors.
func parseList[T ~string](value, what string, known []T) ([]T, error) {
	if value == "" {
		return slices.Clone(known), nil
	}
	wanted := strings.Split(value, ",")
	for _, name := range wanted {
		if !slices.Contains(known, T(name)) {
			return nil, fmt.Errorf("%s names %q; choose among %s", what, name, joinNames(known))
		}
	}
	return slices.DeleteFunc(slices.Clone(known), func(k T) bool { return !slices.Contains(wanted, string(k)) }), nil
}

// joinNames lists names, comma separated.
func joinNames[T ~string](names []T) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return strings.Join(s, ", ")
}

// rotate returns impls starting at position round (wrapping), so no
// implementation always goes first.
func rotate(impls []implementation, round int) []implementation {
	if len(impls) == 0 {
		return nil
	}
	k := round % len(impls)
	return append(slices.Clone(impls[k:]), impls[:k]...)
}
