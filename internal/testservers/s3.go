package testservers

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// S3 is a running S3 server with one bucket.
type S3 struct {
	Endpoint, Region, AccessKey, SecretKey, Bucket string
}

// URL is the bucket as a gocloud s3blob URL.
func (s S3) URL() string {
	return fmt.Sprintf("s3://%s?endpoint=%s&region=%s&use_path_style=true", s.Bucket, s.Endpoint, s.Region)
}

// Env is the credentials as environment variables for a child process (an
// in-process bucket needs them set with t.Setenv).
func (s S3) Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + s.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s.SecretKey, "AWS_REGION=" + s.Region,
		"AWS_EC2_METADATA_DISABLED=true"}
}

// versitygwBinary finds versitygw on PATH or in GOPATH/bin.
func versitygwBinary() string {
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			gopath = strings.TrimSpace(string(out))
		}
	}
	for _, dir := range filepath.SplitList(gopath) {
		p := filepath.Join(dir, "bin", "versitygw")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// VersityGW starts versitygw's posix backend in a temporary directory on a
// free loopback port and creates the bucket "autocut".
func VersityGW(t testing.TB) S3 {
	t.Helper()
	bin := versitygwBinary()
	if bin == "" {
		missing(t, "versitygw (go install github.com/versity/versitygw/cmd/versitygw@v1.8.0)")
	}
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	s := S3{Endpoint: fmt.Sprintf("http://127.0.0.1:%d", port), Region: "us-east-1",
		AccessKey: "autocuttest", SecretKey: "autocut-test-secret", Bucket: "autocut"}
	logPath := filepath.Join(dir, "versitygw.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--port", fmt.Sprintf("127.0.0.1:%d", port), "--access", s.AccessKey, "--secret", s.SecretKey,
		"--region", s.Region, "--quiet", "posix", root)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("versitygw: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			b, _ := os.ReadFile(logPath)
			t.Fatalf("versitygw exited:\n%s", tail(string(b), 20))
		default:
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("versitygw did not listen in 30 s:\n%s", tail(string(b), 20))
		}
		time.Sleep(50 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(s.Bucket)}); err != nil {
		b, _ := os.ReadFile(logPath)
		t.Fatalf("create bucket: %v\n%s", err, tail(string(b), 20))
	}
	return s
}

// Client is an S3 client for the server, for checks a test makes itself.
func (s S3) Client() *s3.Client {
	return s3.New(s3.Options{
		BaseEndpoint: aws.String(s.Endpoint),
		Region:       s.Region,
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
	})
}
