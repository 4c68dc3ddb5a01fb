package main

import (
	"context"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// binary is a built server.
type binary struct {
	Path string
	// LibraryVersion is the version of the implementation's library linked
	// into the binary (from its build information); empty if it has none.
	LibraryVersion string
}

// build compiles impl's server with go build into dir and reads which
// version of its library went in.
func build(ctx context.Context, moduleDir, dir string, impl implementation) (binary, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return binary{}, fmt.Errorf("make the binaries folder %s: %w", dir, err)
	}
	b := binary{Path: filepath.Join(dir, impl.Name)}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", b.Path, impl.Package)
	cmd.Dir = moduleDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return binary{}, fmt.Errorf("go build %s failed: %w\n%s", impl.Package, err, out)
	}
	if impl.Library == "" {
		return b, nil
	}
	info, err := buildinfo.ReadFile(b.Path)
	if err != nil {
		return binary{}, fmt.Errorf("read build information of %s: %w", b.Path, err)
	}
	for _, dep := range info.Deps {
		if dep.Path != impl.Library {
			continue
		}
		switch {
		case dep.Version == "(devel)", dep.Replace != nil && dep.Replace.Version == "":
			// The workspace's module, or a replacement by a directory.
			b.LibraryVersion = "this checkout"
		case dep.Replace != nil:
			b.LibraryVersion = dep.Replace.Path + " " + dep.Replace.Version
		default:
			b.LibraryVersion = dep.Version
		}
		return b, nil
	}
	return binary{}, fmt.Errorf("%s does not link %s; is its Library field right?", b.Path, impl.Library)
}
