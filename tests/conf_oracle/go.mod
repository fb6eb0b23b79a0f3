module subjxform/tests/conf_oracle

go 1.26.0

require github.com/nats-io/nats-server/v2 v2.15.1
