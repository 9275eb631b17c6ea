# Sourced by the benchmarks' run.sh scripts: throwaway_tls DIR writes a CA (DIR/ca.pem) and a
# server certificate for 127.0.0.1 and localhost (DIR/server.pem, DIR/server.key), as
# tests/server/auth/credentials.cc makes them.
throwaway_tls() {
  local dir=$1
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj '/CN=kbench bench CA' \
    -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj '/CN=localhost' -keyout "$dir/server.key" \
    -out "$dir/server.csr" 2>/dev/null
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$dir/ext"
  openssl x509 -req -days 2 -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
    -CAcreateserial -extfile "$dir/ext" -out "$dir/server.pem" 2>/dev/null
}
