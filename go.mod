module github.com/heapconv/heapconv

go 1.26

require (
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
	github.com/klauspost/compress v1.20.3
	github.com/spf13/pflag v1.0.10
	github.com/vmihailenco/msgpack/v5 v5.4.1
)

require github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
