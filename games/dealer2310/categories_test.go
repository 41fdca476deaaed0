package dealer2310

import "testing"

// The categories are the spec's functionality list: 42 marks, 6 for 2310A items, ...
func TestCategoriesTotal(t *testing.T) {
	total := map[string]float64{}
	sum := 0.0
	for _, c := range Categories {
		total[c.Program] += c.Marks
		sum += c.Marks
	}
	if sum != 42 || total["2310A"] != 13 || total["2310B"] != 9 || total["2310dealer"] != 20 {
		t.Fatalf("marks: total %v, by program %v; the spec says 42 = 13 + 9 + 20", sum, total)
	}
}
