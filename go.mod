module github.com/decongestant/decongestant

go 1.26

require (
	github.com/anishathalye/porcupine v1.3.1
	go.mongodb.org/mongo-driver/v2 v2.9.3
	golang.org/x/sync v0.21.0
)

require (
	github.com/klauspost/compress v1.19.2 // indirect
	github.com/xdg-go/pbkdf2 v1.0.0 // indirect
	github.com/xdg-go/scram v1.2.0 // indirect
	github.com/xdg-go/stringprep v1.0.4 // indirect
	github.com/youmark/pkcs8 v0.0.0-20240726163527-a2c0da244d78 // indirect
	golang.org/x/crypto v0.53.0 // indirect
	golang.org/x/text v0.39.0 // indirect
)
