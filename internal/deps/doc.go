// Package deps holds only a test: TestImportRules checks every package's imports against
// the layers of docs/architecture.md, and TestPackageNames that no two packages share a
// name (like the standard library's go/build/deps_test.go).
package deps
