module heapconv

go 1.26

require (
	github.com/klauspost/compress v1.20.3
	github.com/vmihailenco/msgpack/v5 v5.4.1
)

require (
	github.com/spf13/pflag v1.0.10 // indirect
	github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
)
