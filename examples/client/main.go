// Command client drives an autocut server with the Go client: upload a file,
// wait for the job, download the result.
//
//	AUTOCUT_KEY=... go run ./examples/client http://localhost:8080 talk.wav
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/client"
)

func main() {
	if len(os.Args) != 3 {
		log.Fatal("usage: AUTOCUT_KEY=key client SERVER_URL FILE")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	c := client.New(os.Args[1], os.Getenv("AUTOCUT_KEY"))
	job, err := c.CreateFromFile(ctx, os.Args[2], apiv1.Options{Preset: "podcast"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created", job.ID)
	job, err = c.Wait(ctx, job.ID)
	if err != nil {
		log.Fatal(err)
	}
	st := job.Plan.Stats
	fmt.Printf("done: %.1f s -> %.1f s (%d cuts, %.1f%% saved)\n", st.OriginalSec, st.FinalSec, st.CutsCount, st.SavedPct)
	f, err := os.Create(job.Output.Name)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if _, err := c.Download(ctx, job.ID, f); err != nil {
		log.Fatal(err)
	}
	fmt.Println("wrote", job.Output.Name)
}
