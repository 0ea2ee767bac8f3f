package analysis

// CompareUTF16 is compareUTF16, for the tests.
var CompareUTF16 = compareUTF16
