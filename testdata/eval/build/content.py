"""The eval set's sessions and questions (see gen.py and ../README.md).

Each session is a list of steps; a step with key= marks the entry that a
question's evidence names. Questions list (query, [keys], note); an empty
key list is a must-abstain question.
"""


def U(text, key=None, blocks=True):
    return ("user", text, {"key": key, "blocks": blocks})


def A(text=None, calls=(), thinking=None, key=None):
    return ("assistant", text, {"calls": calls, "thinking": thinking, "key": key})


def R(text, error=False, key=None, details=None):
    return ("result", text, {"error": error, "key": key, "details": details})


def X(command, output, code=0, key=None):
    return ("bash_exec", command, output, {"code": code, "key": key})


def BR(to_key, summary):
    return ("branch", to_key, summary, {})


def COMPACT(summary, first_kept_key):
    return ("compaction", summary, first_kept_key, {})


def bash(cmd):
    return ("bash", {"command": cmd})


def read(path):
    return ("read", {"path": path})


def edit(path, old, new):
    return ("edit", {"path": path, "edits": [{"old": old, "new": new}]})


def write(path, text):
    return ("write", {"path": path, "content": text})


LEDGERLY = "/home/dev/src/ledgerly"
LEDGERLY_B = "-src-ledgerly"
TOML = "/home/dev/src/tiny-toml"
TOML_B = "-src-tiny-toml"
INFRA = "/srv/infra/deploy-tools"
INFRA_B = "--srv-infra-deploy-tools--"

SESSIONS = []


def session(name, cwd, bucket, start, title, steps):
    SESSIONS.append({"name": name, "cwd": cwd, "bucket": bucket,
                     "start": start, "title": title, "steps": steps})


# ---------------------------------------------------------------- ledgerly

session("flaky-reconcile", LEDGERLY, LEDGERLY_B, "2026-03-09T09:12:04.311",
        "Flaky TestReconcileBatch", [
    U("TestReconcileBatch in internal/reconcile fails about one run in ten on CI, "
      "always green when I rerun. Can you find out why it's flaky?"),
    A("I'll run it many times with the race detector to reproduce it first.",
      [bash("go test ./internal/reconcile/ -run TestReconcileBatch -count=200 -race")],
      thinking="Reproduce before reading code; -count=200 should surface a 1-in-10 failure."),
    R("--- FAIL: TestReconcileBatch (0.02s)\n"
      "    reconcile_test.go:88: batch mismatch:\n"
      "        got:  [pay_8812 pay_8810 pay_8811]\n"
      "        want: [pay_8810 pay_8811 pay_8812]\n"
      "--- FAIL: TestReconcileBatch (0.02s)\n"
      "    reconcile_test.go:88: batch mismatch:\n"
      "        got:  [pay_8811 pay_8812 pay_8810]\n"
      "        want: [pay_8810 pay_8811 pay_8812]\n"
      "FAIL\nFAIL\tgithub.com/ledgerly/ledgerly/internal/reconcile\t4.118s\nFAIL",
      error=True, key="flaky-repro"),
    A("Reproduced: 7 of 200 runs fail, and only the order of the payment ids differs. "
      "No race report. Let me read the batching code.",
      [read("internal/reconcile/batch.go")], key="flaky-count"),
    R("package reconcile\n\n// groupPending collects the pending payments of one merchant into a batch.\n"
      "func groupPending(pending map[string]Payment, merchant string) Batch {\n"
      "\tb := Batch{Merchant: merchant, Date: time.Now().UTC().Format(\"20060102\")}\n"
      "\tfor id, p := range pending {\n\t\tif p.Merchant == merchant {\n"
      "\t\t\tb.IDs = append(b.IDs, id)\n\t\t}\n\t}\n\treturn b\n}\n"),
    A("Found it. `groupPending` builds the batch by ranging over the `pending` map, and Go "
      "randomises map iteration order, so the order of `b.IDs` changes from run to run. "
      "The test compares the slices with `reflect.DeepEqual`, so it fails whenever the "
      "order differs. It is an ordering bug, not a data race, which is why -race is silent.",
      key="flaky-cause"),
    U("Should we sort in the production code or only in the test?"),
    A("Sort in production. The settlement file we send to the bank "
      "(`SETTLE-YYYYMMDD.csv`) should be byte-for-byte reproducible anyway, so auditors "
      "can diff two runs of the same day. I'll sort by `CreatedAt` and then by `ID` with "
      "`slices.SortFunc`, which keeps equal timestamps stable.",
      [edit("internal/reconcile/batch.go",
            "\treturn b\n}",
            "\tslices.SortFunc(b.IDs, func(x, y string) int {\n"
            "\t\treturn cmpPayments(pending[x], pending[y])\n\t})\n\treturn b\n}")],
      key="flaky-decision"),
    R("Applied 1 edit to internal/reconcile/batch.go (+3 -0)."),
    A(None, [bash("go test ./internal/reconcile/ -run TestReconcileBatch -count=500 -race")]),
    R("ok  \tgithub.com/ledgerly/ledgerly/internal/reconcile\t9.842s", key="flaky-verified"),
    A("500 runs pass with the sort. While reading `groupPending` I noticed a second "
      "problem: the batch date comes from `time.Now()`, so a run that starts at "
      "23:59:59 UTC can produce a batch dated the next day and the golden file "
      "comparison fails. I replaced it with an injected clock "
      "(`github.com/benbjohnson/clock` v1.3.5, already in go.mod for the scheduler) and "
      "the test uses `clock.NewMock()` set to 2026-03-01.",
      [edit("internal/reconcile/batch.go",
            "Date: time.Now().UTC()", "Date: r.clock.Now().UTC()")],
      key="flaky-clock"),
    R("Applied 1 edit to internal/reconcile/batch.go (+1 -1)."),
    A(None, [bash("go test ./internal/reconcile/... -count=50 -race && go vet ./internal/reconcile/...")]),
    R("ok  \tgithub.com/ledgerly/ledgerly/internal/reconcile\t3.207s\n"
      "ok  \tgithub.com/ledgerly/ledgerly/internal/reconcile/csvout\t0.412s"),
    U("good, commit it on a branch"),
    A(None, [bash("git switch -c fix/flaky-reconcile && git commit -am "
                  "'reconcile: sort batch ids by CreatedAt, ID; inject the clock'")]),
    R("Switched to a new branch 'fix/flaky-reconcile'\n"
      "[fix/flaky-reconcile 3f9c2ab] reconcile: sort batch ids by CreatedAt, ID; inject the clock\n"
      " 2 files changed, 19 insertions(+), 6 deletions(-)", key="flaky-commit"),
    A("Committed as 3f9c2ab on `fix/flaky-reconcile`. The CI flake should be gone; the "
      "midnight case was never hit on CI but would have bitten the nightly job.", key="flaky-commit-msg"),
])

session("payments-migration", LEDGERLY, LEDGERLY_B, "2026-03-12T13:40:22.905",
        "payments.settled_at migration", [
    U("We need a settled_at column on payments, backfilled from settlement_events. "
      "Write the migration; we use goose and the files are in db/migrations."),
    A(None, [bash("ls db/migrations | tail -5")]),
    R("0037_merchant_webhooks.sql\n0038_add_refunds.sql\n0039_refund_reason_enum.sql\n"
      "0040_drop_legacy_fx.sql\n0041_merchant_payout_schedule.sql"),
    A("The next number is 0042. One migration: add the column, backfill it, index it.",
      [write("db/migrations/0042_payments_settled_at.sql",
             "-- +goose Up\nALTER TABLE payments ADD COLUMN settled_at timestamptz;\n"
             "UPDATE payments p SET settled_at = e.created_at FROM settlement_events e\n"
             "  WHERE e.payment_id = p.id AND e.kind = 'settled';\n"
             "CREATE INDEX idx_payments_settled_at ON payments (settled_at);\n"
             "-- +goose Down\nALTER TABLE payments DROP COLUMN settled_at;\n")]),
    R("Wrote db/migrations/0042_payments_settled_at.sql (7 lines)."),
    A("Trying it on staging.", [bash("goose -dir db/migrations postgres \"$STAGING_DSN\" up")]),
    R("2026/03/12 14:02:11 goose run: ERROR 0042_payments_settled_at.sql: failed to run SQL "
      "migration: failed to execute SQL query \"CREATE INDEX idx_payments_settled_at ON "
      "payments (settled_at);\": ERROR: canceling statement due to lock timeout "
      "(SQLSTATE 55P03)\nexit status 1", error=True, key="mig-fail"),
    A("It failed on staging. A plain `CREATE INDEX` takes a SHARE lock on `payments` "
      "(41M rows on staging) and our migration role has `lock_timeout = '5s'`, so the "
      "statement was cancelled while the payout worker held row locks. Goose wraps every "
      "migration in a transaction by default, and Postgres refuses `CREATE INDEX "
      "CONCURRENTLY` inside a transaction, so I can't just add CONCURRENTLY. The big "
      "UPDATE in the same transaction would also have held locks on every row for minutes.",
      key="mig-cause"),
    U("so what do we do"),
    A("Split it into three steps: 0042 only adds the nullable column (instant since "
      "Postgres 11, no table rewrite); 0043 builds the index with `CREATE INDEX "
      "CONCURRENTLY` under the `-- +goose NO TRANSACTION` annotation; and the backfill "
      "becomes a batched job, `cmd/backfill-settled-at`, that updates 5,000 rows per "
      "transaction instead of one giant UPDATE.",
      [write("db/migrations/0043_payments_settled_at_idx.sql",
             "-- +goose NO TRANSACTION\n-- +goose Up\n"
             "CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_payments_settled_at ON payments (settled_at);\n"
             "-- +goose Down\nDROP INDEX CONCURRENTLY IF EXISTS idx_payments_settled_at;\n")],
      key="mig-fix"),
    R("Wrote db/migrations/0043_payments_settled_at_idx.sql (5 lines)."),
    A(None, [edit("db/migrations/0042_payments_settled_at.sql",
                  "UPDATE payments p SET settled_at = e.created_at FROM settlement_events e\n"
                  "  WHERE e.payment_id = p.id AND e.kind = 'settled';\n"
                  "CREATE INDEX idx_payments_settled_at ON payments (settled_at);\n", "")]),
    R("Applied 1 edit to db/migrations/0042_payments_settled_at.sql (+0 -3)."),
    A(None, [bash("goose -dir db/migrations postgres \"$STAGING_DSN\" up")]),
    R("2026/03/12 14:21:40 OK   0042_payments_settled_at.sql (38.12ms)\n"
      "2026/03/12 14:25:53 OK   0043_payments_settled_at_idx.sql (4m12.5s)\n"
      "2026/03/12 14:25:53 goose: successfully migrated database to version: 43",
      key="mig-ok"),
    A("Both applied on staging. The concurrent index build took 4m12s and writes kept "
      "flowing the whole time (payout worker latency unchanged in Grafana).", key="mig-ok-summary"),
    U("now the backfill. how long would it take on prod?"),
    A("I'll do a dry run against the prod read replica to count the rows.",
      [bash("go run ./cmd/backfill-settled-at -dsn \"$PROD_REPLICA_DSN\" -batch 5000 -dry-run")]),
    R("dry run: 41,283,117 payments with settled_at IS NULL and a 'settled' event\n"
      "estimated batches: 8,257\nestimated duration at 40ms/batch: 5m30s",
      key="mig-dryrun"),
    A("About 8,257 batches of 5,000. At the 40 ms per batch measured on staging that is "
      "roughly five and a half minutes on production. I'd start it after 22:00 UTC when "
      "payout traffic is lowest, with `-sleep 20ms` between batches so replication lag "
      "stays under a second.", key="mig-estimate"),
    U("and if we need to roll it back?"),
    A("Going down is `goose down-to 41`: 0043's down drops the index with `DROP INDEX "
      "CONCURRENTLY` (also outside a transaction) and 0042's down drops the column. The "
      "backfill needs no undo of its own since its data lives only in that column. "
      "The application must not read settled_at before the backfill finishes; the "
      "`ledger.settledAt` field stays behind the `settled_at_reads` feature flag until then.",
      key="mig-rollback"),
    U("ok. write that in the PR description and open it"),
    A(None, [bash("gh pr create --title 'payments: settled_at column, concurrent index, "
                  "batched backfill' --body-file /tmp/pr-settled-at.md")]),
    R("https://github.com/ledgerly/ledgerly/pull/472", key="mig-pr"),
    A("Opened PR #472 with the three steps, the prod estimate and the rollback plan.", key="mig-pr-msg"),
])

session("summary-latency", LEDGERLY, LEDGERLY_B, "2026-03-18T10:05:47.120",
        "Slow /v1/ledger/summary", [
    U("GET /v1/ledger/summary got slow after the last release: p99 went from about 200ms "
      "to 1.8s in Grafana. Can you investigate?"),
    A("I'll take a 30 s CPU profile from a staging pod while the load test runs.",
      [bash("kubectl -n ledgerly-staging port-forward deploy/ledgerly-api 6060 & sleep 2; "
            "curl -s 'localhost:6060/debug/pprof/profile?seconds=30' > cpu.pprof && "
            "go tool pprof -top -nodecount=10 cpu.pprof")]),
    R("Showing nodes accounting for 27.41s, 88.71% of 30.90s total\n"
      "      flat  flat%   sum%        cum   cum%\n"
      "     0.91s  2.94%  2.94%     13.62s 44.08%  database/sql.(*DB).QueryContext\n"
      "     1.12s  3.62%  6.57%      9.58s 31.00%  encoding/json.Marshal\n"
      "     0.40s  1.29%  7.86%     13.71s 44.37%  github.com/ledgerly/ledgerly/internal/ledger.(*Store).accountBalance\n"
      "     2.31s  7.48% 15.34%      6.02s 19.48%  fmt.Sprintf\n"
      "     0.22s  0.71% 16.05%     14.10s 45.63%  github.com/ledgerly/ledgerly/internal/api.(*Server).summaryHandler", key="perf-pprof"),
    A("44% of CPU is under `QueryContext` called from `accountBalance`. Let me count "
      "queries per statement in pg_stat_statements.",
      [bash("psql \"$STAGING_DSN\" -c \"SELECT calls, round(mean_exec_time::numeric,2) AS mean_ms, "
            "left(query,80) FROM pg_stat_statements ORDER BY calls DESC LIMIT 3\"")]),
    R(" calls  | mean_ms |                                      left\n"
      "--------+---------+--------------------------------------------------------------------------------\n"
      " 182311 |    0.92 | SELECT balance_minor, currency FROM account_balances WHERE account_id = $1\n"
      "   1204 |    3.10 | SELECT id FROM accounts WHERE merchant_id = $1\n"
      "    988 |    1.44 | SELECT * FROM merchants WHERE id = $1\n(3 rows)", key="perf-stats"),
    A("It's an N+1 query: `summaryHandler` now loops over every account of the merchant "
      "and calls `accountBalance` once per account, about 150 round trips per request for "
      "the large merchants. It came in with commit 9d1e0f4 (\"ledger: per-account "
      "currency breakdown\"), released in v1.14.0.", key="perf-cause"),
    U("fix it without changing the response format"),
    A("I'll add `balancesForMerchant`, one query with `account_id = ANY($1)`, and build "
      "the same per-account breakdown from its rows.",
      [edit("internal/ledger/store.go",
            "func (s *Store) accountBalance(",
            "// balancesForMerchant reads every account's balance in one query.\n"
            "func (s *Store) balancesForMerchant(ctx context.Context, ids []int64) (map[int64]Balance, error) {\n"
            "\trows, err := s.db.QueryContext(ctx, `SELECT account_id, balance_minor, currency "
            "FROM account_balances WHERE account_id = ANY($1)`, pq.Array(ids))\n\t...\n}\n\n"
            "func (s *Store) accountBalance(")]),
    R("Applied 1 edit to internal/ledger/store.go (+24 -0)."),
    A(None, [bash("go test ./internal/ledger/ -run '^$' -bench BenchmarkSummary -count=10 > new.txt "
                  "&& benchstat old.txt new.txt")]),
    R("goos: linux\ngoarch: amd64\npkg: github.com/ledgerly/ledgerly/internal/ledger\n"
      "                        │   old.txt   │               new.txt               │\n"
      "                        │   sec/op    │   sec/op     vs base                │\n"
      "Summary/accounts=150-8    48.20m ± 3%   1.69m ± 2%  -96.50% (p=0.000 n=10)\n"
      "                        │   old.txt    │               new.txt                │\n"
      "                        │     B/op     │     B/op      vs base                │\n"
      "Summary/accounts=150-8    3.910Mi ± 0%   0.402Mi ± 0%  -89.72% (p=0.000 n=10)",
      key="perf-bench"),
    A("The summary benchmark with 150 accounts drops from 48.2 ms to 1.69 ms per call "
      "(-96.5%) and allocations by 90%. The second hotspot is `fmt.Sprintf` inside "
      "`Money.MarshalJSON`: it formats every amount as a string with `%d.%02d`. I replaced "
      "it with `strconv.AppendInt` into the encoder's buffer, which keeps the JSON "
      "identical (the golden files in testdata/summary/*.json still match).",
      [edit("internal/ledger/money.go",
            "return []byte(fmt.Sprintf(\"\\\"%d.%02d\\\"\", m.Minor/100, m.Minor%100)), nil",
            "return m.appendJSON(make([]byte, 0, 24)), nil")],
      key="perf-json"),
    R("Applied 1 edit to internal/ledger/money.go (+18 -2)."),
    A(None, [bash("go test ./internal/... 2>&1 | tail -4")]),
    R("ok  \tgithub.com/ledgerly/ledgerly/internal/api\t2.114s\n"
      "ok  \tgithub.com/ledgerly/ledgerly/internal/ledger\t1.870s\n"
      "ok  \tgithub.com/ledgerly/ledgerly/internal/reconcile\t0.933s\n"
      "ok  \tgithub.com/ledgerly/ledgerly/internal/config\t0.118s"),
    COMPACT("## Goal\nFix the /v1/ledger/summary p99 regression from v1.14.0.\n"
            "## Done\nN+1 in summaryHandler replaced by balancesForMerchant (ANY($1)); "
            "Money.MarshalJSON without Sprintf. Benchmark -96.5%.\n## Next\nCanary.",
            "perf-cause"),
    U("I deployed it to the canary 20 minutes ago. What's the p99 now?"),
    A(None, [bash("curl -s 'http://prometheus.monitoring:9090/api/v1/query' --data-urlencode "
                  "'query=histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket"
                  "{route=\"/v1/ledger/summary\",track=\"canary\"}[15m])))' | jq -r '.data.result[0].value[1]'")]),
    R("0.212", key="perf-p99-raw"),
    A("The canary's p99 for the summary endpoint over the last 15 minutes is 212 ms, "
      "back to where it was before v1.14.0 (the stable track is still at 1.7 s).",
      key="perf-p99"),
    U("great, roll it out everywhere and add a regression guard"),
    A("I'll add a test that fails if the summary handler issues more than 3 queries, "
      "using the `sqlcount` wrapper we already have in internal/testdb.",
      [write("internal/api/summary_queries_test.go",
             "func TestSummaryQueryCount(t *testing.T) {\n\tdb := testdb.Counting(t)\n"
             "\t...\n\tif n := db.Queries(); n > 3 {\n"
             "\t\tt.Fatalf(\"summary issued %d queries, want <= 3 (N+1?)\", n)\n\t}\n}\n")],
      key="perf-guard"),
    R("Wrote internal/api/summary_queries_test.go (22 lines)."),
    A("Added `TestSummaryQueryCount`: it fails when the summary endpoint issues more "
      "than 3 queries, so a loop of per-account queries can't sneak back in.", key="perf-guard-msg"),
])

session("config-refactor", LEDGERLY, LEDGERLY_B, "2026-03-24T15:31:09.002",
        "Refactor parseConfig, drop viper", [
    U("Refactor config loading. parseConfig in internal/config/config.go is 300 lines and "
      "does parsing, defaults, env overrides and validation all at once. Also drop viper, "
      "we only use one YAML file plus env vars."),
    A(None, [read("internal/config/config.go")]),
    R("package config\n\nimport (\n\t\"github.com/spf13/viper\"\n)\n\n"
      "// parseConfig reads, defaults, overrides and validates the configuration.\n"
      "func parseConfig(path string) (*Config, error) {\n\tv := viper.New()\n"
      "\tv.SetConfigFile(path)\n\tv.SetEnvPrefix(\"LEDGERLY\")\n"
      "\tv.SetEnvKeyReplacer(strings.NewReplacer(\".\", \"_\"))\n\tv.AutomaticEnv()\n"
      "\tv.SetDefault(\"http.addr\", \":8080\")\n\tv.SetDefault(\"db.max_conns\", 10)\n"
      "\t... (287 more lines)\n}"),
    A("Plan: `parseConfig(r io.Reader)` only decodes YAML with `yaml.v3` and "
      "`KnownFields(true)`; `applyDefaults(*Config)` sets defaults; `applyEnv(*Config, "
      "lookup func(string) (string, bool))` reads the `LEDGERLY_*` variables (a lookup "
      "function so tests don't touch the process environment); `validate(*Config) error` "
      "reports every problem at once with `errors.Join`. `Load(path)` composes the four.",
      key="ref-plan"),
    U("sounds good, go"),
    A(None, [write("internal/config/load.go",
                   "// Load reads the file at path, applies defaults and LEDGERLY_* overrides\n"
                   "// and validates the result.\nfunc Load(path string) (*Config, error) {\n\t...\n}\n")]),
    R("Wrote internal/config/load.go (41 lines)."),
    A(None, [bash("go test ./internal/config/...")]),
    R("--- FAIL: TestLoad_EnvOverride (0.00s)\n"
      "    config_test.go:54: DB.MaxConns = 10, want 25 (LEDGERLY_DB_MAX_CONNS=25)\n"
      "--- FAIL: TestLoad_EnvOverride/nested_http_timeout (0.00s)\n"
      "    config_test.go:61: HTTP.ReadTimeout = 5s, want 30s\n"
      "FAIL\nFAIL\tgithub.com/ledgerly/ledgerly/internal/config\t0.091s",
      error=True, key="ref-fail"),
    A("The env override of nested keys broke. Viper mapped `LEDGERLY_DB_MAX_CONNS` to "
      "`db.max_conns` through its key replacer; my `applyEnv` only looked at top-level "
      "fields. I'll walk the struct with reflection and an `env` tag on each leaf field "
      "(`env:\"DB_MAX_CONNS\"`), so the names are explicit and greppable.",
      [edit("internal/config/config.go",
            "MaxConns int `yaml:\"max_conns\"`",
            "MaxConns int `yaml:\"max_conns\" env:\"DB_MAX_CONNS\"`")],
      key="ref-cause"),
    R("Applied 1 edit to internal/config/config.go (+14 -14)."),
    A(None, [bash("go test ./internal/config/...")]),
    R("ok  \tgithub.com/ledgerly/ledgerly/internal/config\t0.104s"),
    U("what happens with old config files? some still have metrics_port at the top level"),
    A("With `KnownFields(true)` an old file containing `metrics_port` would now fail to "
      "load. I kept decoding strict but added a small table of deprecated keys: "
      "`metrics_port` is still accepted, mapped to `telemetry.port`, and logs one "
      "warning (\"config: metrics_port is deprecated, use telemetry.port\"). Any other "
      "unknown key is an error that names the key and its line.",
      key="ref-unknown"),
    U("ok. remove viper from go.mod"),
    A(None, [bash("go mod tidy && git diff --stat go.mod go.sum && go build -o /tmp/ledgerly ./cmd/ledgerly "
                  "&& ls -l /tmp/ledgerly")]),
    R("go: removing github.com/spf13/viper v1.18.2\n"
      "go: removing github.com/spf13/afero v1.11.0\n"
      "go: removing github.com/pelletier/go-toml/v2 v2.1.0\n"
      "go: removing github.com/sagikazarmark/slog-shim v0.1.0\n"
      " go.mod |  14 +---\n go.sum | 112 +-----------\n"
      "-rwxr-xr-x 1 dev dev 24912384 Mar 24 16:02 /tmp/ledgerly", key="ref-tidy"),
    A("viper v1.18.2 and eleven transitive modules are gone. The binary went from "
      "31.4 MB to 24.9 MB.", key="ref-size"),
    U("also document the env vars somewhere"),
    A("I'll generate the list from the `env` tags so it can't drift: `go run "
      "./internal/config/cmd/envdoc > docs/configuration.md`, with a test that fails "
      "when the committed file differs from the generated one.",
      [bash("go run ./internal/config/cmd/envdoc > docs/configuration.md && head -8 docs/configuration.md")]),
    R("# Configuration\n\n| Variable | YAML key | Default |\n|---|---|---|\n"
      "| LEDGERLY_HTTP_ADDR | http.addr | :8080 |\n| LEDGERLY_HTTP_READ_TIMEOUT | http.read_timeout | 5s |\n"
      "| LEDGERLY_DB_DSN | db.dsn | (required) |\n| LEDGERLY_DB_MAX_CONNS | db.max_conns | 10 |",
      key="ref-envdoc"),
    A("docs/configuration.md now lists every variable; `TestEnvDocUpToDate` keeps it in "
      "sync.", key="ref-envdoc-msg"),
])

session("github-actions-ci", LEDGERLY, LEDGERLY_B, "2026-03-27T08:50:13.447",
        "Move CI to GitHub Actions", [
    U("Set up GitHub Actions for ledgerly: lint, unit tests and the integration tests "
      "against Postgres. We're on CircleCI now and want off it."),
    A("I'll write one workflow with three jobs.",
      [write(".github/workflows/ci.yml",
             "name: ci\non: [push, pull_request]\njobs:\n  lint:\n    runs-on: ubuntu-latest\n"
             "    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-go@v5\n"
             "        with: { go-version: '1.23.x' }\n      - uses: golangci/golangci-lint-action@v6\n"
             "  unit:\n    ...\n  integration:\n    services:\n      postgres:\n        image: postgres:16\n"
             "        env: { POSTGRES_PASSWORD: ci }\n        ports: ['5432:5432']\n"
             "    steps:\n      - run: go test -tags=integration ./...\n")]),
    R("Wrote .github/workflows/ci.yml (58 lines)."),
    A(None, [bash("git push -u origin ci/github-actions && sleep 5 && gh run watch --exit-status")]),
    R("X integration in 1m12s (ID 24011873311)\n"
      "  ✓ Set up job\n  ✓ Initialize containers\n  X Run go test -tags=integration ./...\n"
      "--- FAIL: TestStore_Migrate (30.01s)\n"
      "    store_test.go:41: dial tcp 127.0.0.1:5432: connect: connection refused\n"
      "    store_test.go:41: context deadline exceeded\n"
      "FAIL\tgithub.com/ledgerly/ledgerly/internal/store\t30.144s\n"
      "Error: Process completed with exit code 1.", error=True, key="ci-fail"),
    A("The integration job started its steps before Postgres accepted connections: the "
      "service container has no health check, so GitHub only waits for the container to "
      "start, not for the server to be ready. I'm adding `options: --health-cmd "
      "pg_isready --health-interval 5s --health-timeout 5s --health-retries 10`; the "
      "runner then waits until the container reports healthy.",
      [edit(".github/workflows/ci.yml",
            "        ports: ['5432:5432']\n",
            "        ports: ['5432:5432']\n        options: >-\n          --health-cmd pg_isready\n"
            "          --health-interval 5s --health-timeout 5s --health-retries 10\n")],
      key="ci-cause"),
    R("Applied 1 edit to .github/workflows/ci.yml (+4 -0)."),
    A(None, [bash("git commit -qam 'ci: wait for postgres health' && git push -q && gh run watch --exit-status")]),
    R("✓ lint in 4m03s\n✓ unit in 1m48s\n✓ integration in 2m21s\n"
      "✓ ci/github-actions ci · 24011901187"),
    U("lint takes four minutes?? why"),
    A("golangci-lint ran without its cache. `golangci-lint-action` only restores its "
      "analysis cache for a pinned version, and the workflow said `version: latest`, so "
      "every run started cold. I pinned it to v1.59.1; the second run after that took "
      "48 s instead of 4 minutes.",
      [edit(".github/workflows/ci.yml",
            "      - uses: golangci/golangci-lint-action@v6\n",
            "      - uses: golangci/golangci-lint-action@v6\n        with: { version: v1.59.1 }\n")],
      key="ci-lint"),
    R("Applied 1 edit to .github/workflows/ci.yml (+1 -0)."),
    U("also test on go 1.24, we plan to move to it"),
    A("Added a matrix to the unit job, `go: ['1.23.x', '1.24.x']`; integration stays on "
      "1.23 only to save runner minutes.",
      [edit(".github/workflows/ci.yml", "  unit:\n",
            "  unit:\n    strategy:\n      matrix:\n        go: ['1.23.x', '1.24.x']\n")],
      key="ci-matrix"),
    R("Applied 1 edit to .github/workflows/ci.yml (+3 -0)."),
    A(None, [bash("git commit -qam 'ci: go 1.24 in the unit matrix' && git push -q && gh run watch --exit-status")]),
    R("X unit (1.24.x) in 1m02s\n"
      "# github.com/ledgerly/ledgerly/internal/ledger\n"
      "internal/ledger/fx.go:112:14: printf: non-constant format string in call to fmt.Errorf\n"
      "FAIL\tgithub.com/ledgerly/ledgerly/internal/ledger [build failed]",
      error=True, key="ci-vet"),
    A("Go 1.24's vet (which `go test` runs) has a new printf check for non-constant "
      "format strings: `fmt.Errorf(msg)` in internal/ledger/fx.go:112 would misformat a "
      "message containing `%`. I changed it to `errors.New(msg)`; 1.23 never flagged it.",
      [edit("internal/ledger/fx.go", "return fmt.Errorf(msg)", "return errors.New(msg)")],
      key="ci-vet-fix"),
    R("Applied 1 edit to internal/ledger/fx.go (+1 -1)."),
    A(None, [bash("git commit -qam 'ledger: errors.New for a constant message' && git push -q && gh run watch --exit-status")]),
    R("✓ lint in 51s\n✓ unit (1.23.x) in 1m44s\n✓ unit (1.24.x) in 1m50s\n✓ integration in 2m18s"),
    U("nice. delete the circleci config then"),
    A(None, [bash("git rm -q .circleci/config.yml && git commit -qm 'ci: remove CircleCI' && git push -q")]),
    R(""),
    A("Removed `.circleci/config.yml`; once this merges, disconnect the project in "
      "CircleCI's settings so it stops reporting a pending status on PRs.", key="ci-circle"),
])

session("ledgerly-onboarding", LEDGERLY, LEDGERLY_B, "2026-04-06T11:02:55.610",
        "Local setup and money conventions", [
    U("I'm new on ledgerly. How do I run it locally?"),
    A(None, [read("docs/development.md")]),
    R("# Development\n\n1. `docker compose up -d db` starts Postgres 16 on port 5433.\n"
      "2. `make migrate` runs goose against it.\n"
      "3. `make run` starts the API on :8080 with config/dev.yaml.\n"
      "4. `make seed` loads three merchants and 10,000 payments.\n", key="onb-docs"),
    A("Start Postgres with `docker compose up -d db` (it listens on 5433, not 5432, so it "
      "doesn't clash with a local install), then `make migrate`, `make seed` and `make "
      "run`. The API comes up on :8080 using config/dev.yaml.", key="onb-run"),
    U("Before you write anything: we decided long ago that money is always int64 minor "
      "units with a separate ISO 4217 currency code. Never floats, never decimal strings "
      "in the database.", key="onb-money"),
    A("Understood: amounts as `int64` minor units plus a currency code, everywhere. "
      "I see `Money{Minor int64; Currency string}` in internal/ledger/money.go follows it."),
    U("Add a helper that splits an amount into n parts for installment plans."),
    A(None, [write("internal/ledger/split.go",
                   "// Split divides m into n parts that differ by at most one minor unit;\n"
                   "// the first parts get the remainder, so the parts always sum to m.\n"
                   "func (m Money) Split(n int) []Money {\n\t...\n}\n")]),
    R("Wrote internal/ledger/split.go (26 lines)."),
    A("`Money.Split(n)` divides the amount into n parts that differ by at most one minor "
      "unit, with the remainder going to the first parts: 100.00 EUR in 3 gives 33.34, "
      "33.33, 33.33. The parts always add up exactly to the original, which is what "
      "the installment ledger checks.", key="onb-split"),
    U("what about currencies without minor units, like JPY?"),
    A(None, [bash("grep -n 'JPY\\|exponent' internal/ledger/currency.go | head")]),
    R("14:// exponent is the number of minor-unit digits per ISO 4217.\n"
      "15:var exponent = map[string]int{\n22:\t\"JPY\": 0,\n23:\t\"KRW\": 0,\n24:\t\"BHD\": 3,\n25:\t\"KWD\": 3,"),
    A("Those work unchanged: for JPY the exponent is 0 so one minor unit is one yen, and "
      "Split never produces fractions. The exponent table in currency.go also covers the "
      "three-digit currencies (BHD, KWD) which matter when formatting, not when splitting.",
      key="onb-jpy"),
    U("ok run the tests"),
    A(None, [bash("go test ./internal/ledger/ -run 'Split|Money' -v 2>&1 | tail -6")]),
    R("=== RUN   TestSplit/EUR_100.00_by_3\n=== RUN   TestSplit/JPY_1000_by_3\n"
      "=== RUN   TestSplit/zero_parts_panics\n--- PASS: TestSplit (0.00s)\n"
      "PASS\nok  \tgithub.com/ledgerly/ledgerly/internal/ledger\t0.021s"),
    U("One more convention: all timestamps in the DB are timestamptz in UTC, and the API "
      "returns RFC 3339 with a Z. Local time is only for display in the dashboard.",
      key="onb-time"),
    A("Noted. The new code has no timestamps; `Split` is pure."),
    X("make lint", "golangci-lint run ./...\n0 issues.", key="onb-lint"),
    U("thanks, open a PR"),
    A(None, [bash("gh pr create --fill --title 'ledger: Money.Split for installment plans'")]),
    R("https://github.com/ledgerly/ledgerly/pull/489"),
    A("Opened PR #489."),
])

# ---------------------------------------------------------------- tiny-toml

session("npm-release-230", TOML, TOML_B, "2026-04-01T16:20:31.778",
        "Release @tinytoml/core 2.3.0", [
    U("Release tiny-toml 2.3.0 to npm, the changelog is ready."),
    A(None, [bash("npm version minor -m 'release %s' && git push --follow-tags")]),
    R("v2.3.0\nTo github.com:tinytoml/tiny-toml.git\n * [new tag]         v2.3.0 -> v2.3.0"),
    A(None, [bash("npm publish --provenance")]),
    R("npm notice\nnpm notice 📦  @tinytoml/core@2.3.0\nnpm notice Tarball Contents\n"
      "npm notice 41.2kB dist/index.js\nnpm notice 12.9kB dist/index.d.ts\n"
      "npm ERR! code EUSAGE\n"
      "npm ERR! Automatic provenance generation not supported for provider: null\n"
      "npm ERR! A complete log of this run can be found in: "
      "/home/dev/.npm/_logs/2026-04-01T16_22_10_114Z-debug-0.log",
      error=True, key="pub-prov-err"),
    A("npm can only attach provenance when it runs inside a supported CI provider "
      "(GitHub Actions with `id-token: write`, or GitLab CI): it needs the CI's OIDC "
      "token to sign the statement. From a laptop there is nothing to attest, hence "
      "`provider: null`. Either publish without `--provenance` now, or push the release "
      "through a workflow.", key="pub-prov-expl"),
    U("just publish from here this time, we'll move it to CI afterwards"),
    A(None, [bash("npm publish")]),
    R("npm notice Publishing to https://registry.npmjs.org/ with tag latest and default access\n"
      "npm ERR! code E402\n"
      "npm ERR! 402 Payment Required - PUT https://registry.npmjs.org/@tinytoml%2fcore - "
      "You must sign up for private packages", error=True, key="pub-402"),
    A("Scoped packages (`@tinytoml/core`) are published as private by default, and the "
      "org has no paid plan, hence 402. I added `\"publishConfig\": {\"access\": "
      "\"public\"}` to package.json so nobody has to remember `--access public` again.",
      [edit("package.json", "  \"license\": \"MIT\",\n",
            "  \"license\": \"MIT\",\n  \"publishConfig\": { \"access\": \"public\" },\n")],
      key="pub-access"),
    R("Applied 1 edit to package.json (+1 -0)."),
    U("my OTP is 491203"),
    A(None, [bash("npm publish --otp=491203")]),
    R("npm notice Publishing to https://registry.npmjs.org/ with tag latest and public access\n"
      "+ @tinytoml/core@2.3.0", key="pub-ok"),
    A("Published @tinytoml/core@2.3.0 with the `latest` tag."),
    U("now set up the release workflow with provenance, so next time it's a tag push"),
    A("One workflow, triggered by `v*` tags.",
      [write(".github/workflows/release.yml",
             "name: release\non:\n  push:\n    tags: ['v*']\npermissions:\n  contents: read\n"
             "  id-token: write\njobs:\n  publish:\n    runs-on: ubuntu-latest\n    steps:\n"
             "      - uses: actions/checkout@v4\n      - uses: actions/setup-node@v4\n"
             "        with: { node-version: 20, registry-url: 'https://registry.npmjs.org' }\n"
             "      - run: npm ci && npm test\n      - run: npm publish --provenance\n"
             "        env: { NODE_AUTH_TOKEN: '${{ secrets.NPM_TOKEN }}' }\n")]),
    R("Wrote .github/workflows/release.yml (19 lines)."),
    A("The workflow publishes on every `v*` tag with `--provenance`. It authenticates "
      "with an npm *automation* token stored as the `NPM_TOKEN` repository secret: "
      "automation tokens skip the 2FA one-time password, which a workflow cannot type. "
      "`id-token: write` lets npm get the OIDC token for the provenance statement.",
      key="pub-workflow"),
    U("ok I created the token and the secret. try it with 2.3.1 (the docs typo fix)"),
    A(None, [bash("npm version patch -m 'release %s' && git push --follow-tags && sleep 60 "
                  "&& gh run view --log --job publish | grep -E 'provenance|\\+ @'")]),
    R("npm notice Signed provenance statement with source and build information from GitHub Actions\n"
      "npm notice Provenance statement published to transparency log: "
      "https://search.sigstore.dev/?logIndex=98123456\n+ @tinytoml/core@2.3.1",
      key="pub-sigstore"),
    A("2.3.1 went out from the workflow with a signed provenance statement (Sigstore "
      "log index 98123456); the npm page now shows the \"Built and signed on GitHub "
      "Actions\" badge."),
])

session("crlf-multiline", TOML, TOML_B, "2026-04-08T09:44:02.051",
        "CRLF in multiline strings (#118)", [
    U("Issue #118: multiline basic strings parse wrong in files with Windows line "
      "endings, every line of the value keeps a trailing \\r. There's a repro in the issue."),
    A(None, [bash("gh issue view 118 --json body -q .body | head -20")]),
    R("Parsing this file saved on Windows:\n\n```toml\nmsg = \"\"\"\nfirst line\nsecond line\\\n"
      "   continued\"\"\"\n```\n\ngives `\"\\r\\nfirst line\\r\\nsecond line\\\\\\r\\n   continued\"` "
      "instead of `\"first line\\nsecond linecontinued\"`.\n"
      "tiny-toml 2.3.1, node 20.11"),
    A(None, [read("src/lexer.ts")]),
    R("  private readMultilineString(quote: string): string {\n"
      "    let out = '';\n    // A newline right after the opening delimiter is trimmed.\n"
      "    if (this.peek() === '\\n') this.pos++;\n    for (;;) {\n"
      "      const c = this.next();\n      if (c === '\\\\' && this.peek() === '\\n') {\n"
      "        this.skipWhitespaceAndNewlines();\n        continue;\n      }\n"
      "      ...\n    }\n  }"),
    A("Two checks in `readMultilineString` only look for `\\n`: the trim of the newline "
      "right after the opening `\"\"\"`, and the line-ending backslash. With CRLF input "
      "the next character is `\\r`, so neither fires: the leading newline stays and the "
      "backslash continuation is kept literally. TOML 1.0 says CRLF counts as a newline "
      "in both places.", key="crlf-cause"),
    A(None, [edit("src/lexer.ts",
                  "if (this.peek() === '\\n') this.pos++;",
                  "this.skipNewline(); // \\n or \\r\\n")]),
    R("Applied 1 edit to src/lexer.ts (+9 -3)."),
    A(None, [bash("npx vitest run test/lexer.test.ts")]),
    R(" ❯ test/lexer.test.ts (58 tests | 1 failed) 41ms\n"
      "   × multiline > rejects a lone carriage return\n"
      "     → expected [Function] to throw an error\n\n"
      " Test Files  1 failed (1)\n      Tests  1 failed | 57 passed (58)",
      error=True, key="crlf-lonecr-fail"),
    A("That test existed but was marked `.todo` until now, so it never ran; my change "
      "made vitest pick it up. A carriage return that is not followed by `\\n` is a "
      "control character, and TOML 1.0 forbids control characters other than tab in "
      "strings. The old lexer accepted it silently; it now throws `TomlError: bare "
      "carriage return at line 3, column 8`.",
      [edit("src/lexer.ts", "      const c = this.next();\n",
            "      const c = this.next();\n      if (c === '\\r' && this.peek() !== '\\n') "
            "throw this.error('bare carriage return');\n")],
      key="crlf-lonecr"),
    R("Applied 1 edit to src/lexer.ts (+2 -0)."),
    A(None, [bash("npx vitest run")]),
    R(" Test Files  14 passed (14)\n      Tests  412 passed (412)\n   Start at  10:03:55\n"
      "   Duration  2.31s", key="crlf-tests"),
    U("can we also run the official toml-test suite against the decoder?"),
    A(None, [bash("go install github.com/toml-lang/toml-test/cmd/toml-test@v1.5.0 && "
                  "toml-test -toml 1.0 ./bin/toml-decoder.mjs 2>&1 | tail -6")]),
    R("FAIL valid/datetime/offset-minus-zero\n"
      "FAIL valid/datetime/local-time-no-seconds\n"
      "FAIL invalid/datetime/offset-overflow-hour\n\n"
      "toml-test v1.5.0: using embedded tests\n  valid tests: 184 passed,  2 failed\n"
      "invalid tests: 371 passed,  1 failed", key="crlf-suite"),
    A("toml-test v1.5.0 passes 555 of 558 cases; the three failures are all datetime "
      "edge cases (`-00:00` offsets, times without seconds which are TOML 1.1), unrelated "
      "to #118. I filed them as #121.", key="crlf-suite-summary"),
    U("ok, make a PR that closes 118 and add the repro as a fixture"),
    A(None, [bash("cp /tmp/issue118.toml test/fixtures/crlf-multiline.toml && unix2dos -q "
                  "test/fixtures/crlf-multiline.toml && git add -A && git commit -qm "
                  "'lexer: CRLF in multiline strings; reject a bare CR (fixes #118)' && "
                  "gh pr create --fill")]),
    R("https://github.com/tinytoml/tiny-toml/pull/122"),
    A("PR #122 closes #118. The fixture is stored with CRLF line endings; I added "
      "`test/fixtures/*.toml -text` to .gitattributes so git never normalizes them.",
      key="crlf-gitattributes"),
])

session("esm-cjs-exports", TOML, TOML_B, "2026-04-14T14:11:38.900",
        "ERR_REQUIRE_ESM from CommonJS users", [
    U("Someone reports ERR_REQUIRE_ESM when they require() @tinytoml/core 2.3.1 from a "
      "CommonJS project. We moved the build to tsup in 2.3. Please fix."),
    A(None, [bash("cat package.json | jq '{type, main, module, exports}' && cat tsup.config.ts")]),
    R("{\n  \"type\": \"module\",\n  \"main\": \"./dist/index.js\",\n  \"module\": null,\n"
      "  \"exports\": {\n    \".\": \"./dist/index.js\"\n  }\n}\n"
      "import { defineConfig } from 'tsup';\nexport default defineConfig({\n"
      "  entry: ['src/index.ts'],\n  format: ['esm'],\n  dts: true,\n  clean: true,\n});",
      key="esm-pkg"),
    A("The exports map has a single target, the ES module build, and tsup only emits "
      "`format: ['esm']`. So `require('@tinytoml/core')` resolves to an ES module, which "
      "Node 18 and 20 refuse to load with ERR_REQUIRE_ESM (Node 22's require(esm) is "
      "still behind a flag there). Before 2.3 the old rollup build shipped both formats, "
      "so this is a regression of the tsup move.", key="esm-cause"),
    U("ship both formats again then"),
    A(None, [edit("tsup.config.ts", "format: ['esm'],", "format: ['esm', 'cjs'],"),
             edit("package.json", "\".\": \"./dist/index.js\"",
                  "\".\": {\n      \"import\": \"./dist/index.js\",\n      \"require\": \"./dist/index.cjs\",\n"
                  "      \"types\": \"./dist/index.d.ts\"\n    }")]),
    R("Applied 1 edit to tsup.config.ts (+1 -1)."),
    R("Applied 1 edit to package.json (+5 -1)."),
    A(None, [bash("npm run build && npx publint")]),
    R("CJS dist/index.cjs 43.10 KB\nESM dist/index.js 41.22 KB\nDTS dist/index.d.ts 12.90 KB\n"
      "DTS dist/index.d.cts 12.90 KB\n"
      "Warnings:\n1. pkg.exports[\".\"].types should be the first in the object as conditions are "
      "order sensitive. It is currently shadowed by pkg.exports[\".\"].import\n"
      "2. pkg.exports[\".\"].require types are interpreted as ESM when resolving with the "
      "\"require\" condition. Use .d.cts for CJS.", key="esm-publint"),
    A("publint is right twice: conditions match in order, so `types` must come first or "
      "TypeScript takes `import` and never sees it; and the CJS entry needs its own "
      "`.d.cts` declarations. I nested the conditions as `import: {types: index.d.ts, "
      "default: index.js}` and `require: {types: index.d.cts, default: index.cjs}`.",
      [edit("package.json", "\"import\": \"./dist/index.js\"",
            "\"import\": { \"types\": \"./dist/index.d.ts\", \"default\": \"./dist/index.js\" }")],
      key="esm-types-order"),
    R("Applied 1 edit to package.json (+6 -3)."),
    A(None, [bash("npx @arethetypeswrong/cli --pack .")]),
    R("@tinytoml/core v2.3.1\n\n No problems found 🌟\n\n"
      "┌───────────────────┬──────────────────────────┐\n"
      "│                   │ \"@tinytoml/core\"         │\n"
      "├───────────────────┼──────────────────────────┤\n"
      "│ node10            │ 🟢                       │\n"
      "│ node16 (from CJS) │ 🟢 (CJS)                 │\n"
      "│ node16 (from ESM) │ 🟢 (ESM)                 │\n"
      "│ bundler           │ 🟢                       │\n"
      "└───────────────────┴──────────────────────────┘", key="esm-attw"),
    A(None, [bash("cd /tmp/cjs-consumer && npm i ~/src/tiny-toml && node -e "
                  "\"console.log(require('@tinytoml/core').parse('a = 1'))\"")], key="esm-cjs-check"),
    R("{ a: 1 }", key="esm-cjs-ok"),
    U("what about node 16, do we need to care?"),
    A("No: package.json has `\"engines\": {\"node\": \">=18\"}` since 2.0, and Node 16 "
      "reached end of life in September 2023. The CJS build is for CommonJS projects on "
      "18+, not for old Node.", key="esm-engines"),
    U("release it"),
    A("As a patch, since it fixes a regression: 2.3.2. The tag push runs the release "
      "workflow.", [bash("npm version patch -m 'release %s' && git push --follow-tags")], key="esm-release-msg"),
    R("v2.3.2\nTo github.com:tinytoml/tiny-toml.git\n * [new tag]         v2.3.2 -> v2.3.2",
      key="esm-release"),
    A("Tagged v2.3.2; the workflow publishes it with provenance. I also commented on the "
      "issue with the fix version."),
])

# ---------------------------------------------------------------- deploy-tools

session("rollout-timeout", INFRA, INFRA_B, "2026-04-03T07:31:18.266",
        "ledgerly 1.15.0 prod-eu rollout timeout", [
    U("The deploy of ledgerly 1.15.0 to prod-eu timed out in the pipeline: "
      "`error: deployment \"ledgerly-api\" exceeded its progress deadline`. Look into it."),
    A(None, [bash("kubectl --context prod-eu -n ledgerly rollout status deploy/ledgerly-api --timeout=60s")]),
    R("Waiting for deployment \"ledgerly-api\" rollout to finish: 2 out of 6 new replicas have been updated...\n"
      "error: timed out waiting for the condition", error=True, key="dep-status"),
    A("Likely the readiness probe: 1.15.0 runs the settled_at feature-flag warmup at "
      "start, which can take longer than the probe's 30 s initial delay. I'll raise "
      "`initialDelaySeconds` to 90.",
      [edit("k8s/ledgerly/api-deployment.yaml", "initialDelaySeconds: 30", "initialDelaySeconds: 90")]),
    R("Applied 1 edit to k8s/ledgerly/api-deployment.yaml (+1 -1)."),
    U("wait, did you check the pods at all? the probe is a guess"),
    BR("dep-status", "Raised readinessProbe initialDelaySeconds from 30 to 90 without "
       "looking at the pods; abandoned: a guess, the pods had not started."),
    A("You're right, I guessed. Looking at the pods first.",
      [bash("kubectl --context prod-eu -n ledgerly get pods -l app=ledgerly-api -o wide")]),
    R("NAME                            READY   STATUS             RESTARTS   AGE   NODE\n"
      "ledgerly-api-6d8f7c9b54-2kq9x   1/1     Running            0          2d    ip-10-42-3-17\n"
      "ledgerly-api-6d8f7c9b54-8mvrt   1/1     Running            0          2d    ip-10-42-1-204\n"
      "ledgerly-api-6d8f7c9b54-ft7wl   1/1     Running            0          2d    ip-10-42-2-66\n"
      "ledgerly-api-6d8f7c9b54-qq2n4   1/1     Running            0          2d    ip-10-42-3-90\n"
      "ledgerly-api-7b9d4f6c88-hx5jz   0/1     ImagePullBackOff   0          11m   ip-10-42-1-31\n"
      "ledgerly-api-7b9d4f6c88-w2p8d   0/1     ErrImagePull       0          11m   ip-10-42-2-145"),
    A(None, [bash("kubectl --context prod-eu -n ledgerly describe pod ledgerly-api-7b9d4f6c88-hx5jz | sed -n '/Events:/,$p'")]),
    R("Events:\n  Type     Reason     Age                 From               Message\n"
      "  ----     ------     ----                ----               -------\n"
      "  Normal   Scheduled  11m                 default-scheduler  Successfully assigned ledgerly/ledgerly-api-7b9d4f6c88-hx5jz to ip-10-42-1-31\n"
      "  Warning  Failed     9m12s (x4 over 11m) kubelet            Failed to pull image "
      "\"registry.ledgerly.io/ledgerly-api:1.15.0\": rpc error: code = Unknown desc = failed to "
      "pull and unpack image \"registry.ledgerly.io/ledgerly-api:1.15.0\": unexpected status "
      "from GET request to https://registry.ledgerly.io/v2/ledgerly-api/manifests/1.15.0: "
      "429 Too Many Requests\n"
      "  Normal   BackOff    62s (x38 over 11m)  kubelet            Back-off pulling image "
      "\"registry.ledgerly.io/ledgerly-api:1.15.0\"", key="dep-429"),
    A("The new pods never start, so readiness was never the problem: kubelet gets HTTP "
      "429 Too Many Requests from our registry when it pulls the 1.15.0 image, backs "
      "off, and after `progressDeadlineSeconds` the Deployment is marked as failed. "
      "The registry limits pulls per source IP, and every prod-eu node egresses "
      "through the same NAT gateway, so a rollout of 6 replicas plus the nightly "
      "batch jobs exhausted the quota.", key="dep-cause"),
    U("how do we get it out now, and what's the proper fix?"),
    A("Now: the old ReplicaSet is still serving, so no rollback is needed; I'll point the "
      "Deployment at the pull-through mirror `mirror.eu-west-1.ledgerly.internal`, "
      "which already cached 1.15.0 from staging. Properly: ask the registry team to "
      "raise the limit for the NAT gateway's IP, and switch `imagePullPolicy` from "
      "`Always` to `IfNotPresent`, since our tags are immutable and every pod restart "
      "re-pulled the manifest for nothing.",
      [bash("kubectl --context prod-eu -n ledgerly set image deploy/ledgerly-api "
            "api=mirror.eu-west-1.ledgerly.internal/ledgerly-api:1.15.0")],
      key="dep-fix"),
    R("deployment.apps/ledgerly-api image updated"),
    A(None, [bash("time kubectl --context prod-eu -n ledgerly rollout status deploy/ledgerly-api --timeout=10m")]),
    R("Waiting for deployment \"ledgerly-api\" rollout to finish: 4 of 6 updated replicas are available...\n"
      "deployment \"ledgerly-api\" successfully rolled out\n\nreal\t2m41.337s", key="dep-ok"),
    A("1.15.0 is fully rolled out in prod-eu; it took 2m41s from the mirror."),
    U("one thing I don't get: the pipeline gave up after 5 minutes but the deadline is 10?"),
    A(None, [bash("grep -n 'rollout status\\|progressDeadline' deploy/rollout.sh k8s/ledgerly/api-deployment.yaml")]),
    R("deploy/rollout.sh:42:kubectl rollout status \"deploy/$APP\" -n \"$NS\" --timeout=300s\n"
      "k8s/ledgerly/api-deployment.yaml:9:  progressDeadlineSeconds: 600"),
    A("There are two separate timeouts. The pipeline step runs `kubectl rollout status "
      "--timeout=300s` (deploy/rollout.sh, line 42), which only stops *watching* after 5 "
      "minutes; the Deployment's own `progressDeadlineSeconds: 600` is what marks the "
      "rollout failed in the cluster after 10. The pipeline's watch gave up first. I set "
      "both to 900 s and made rollout.sh print `kubectl get events` for the namespace "
      "when the watch fails, so the next failure shows the cause in the pipeline log.",
      [edit("deploy/rollout.sh", "--timeout=300s", "--timeout=900s || { kubectl get events -n \"$NS\" "
            "--sort-by=.lastTimestamp | tail -30; exit 1; }")],
      key="dep-timeouts"),
    R("Applied 1 edit to deploy/rollout.sh (+4 -1)."),
    A(None, [edit("k8s/ledgerly/api-deployment.yaml", "imagePullPolicy: Always", "imagePullPolicy: IfNotPresent")]),
    R("Applied 1 edit to k8s/ledgerly/api-deployment.yaml (+1 -1)."),
    U("write up a short incident note for the channel"),
    A("**prod-eu deploy of ledgerly 1.15.0 stalled (07:05–07:52 UTC).** New pods could "
      "not pull their image: registry.ledgerly.io answered 429 (per-IP pull limit; all "
      "prod-eu nodes share one NAT IP). Old pods kept serving, no customer impact. "
      "Mitigated by pulling from the EU mirror. Follow-ups: registry limit for the NAT "
      "IP (registry team), imagePullPolicy IfNotPresent (done), rollout watch 900 s with "
      "events on failure (done).", key="dep-note"),
])

session("tf-state-lock", INFRA, INFRA_B, "2026-04-02T11:26:40.519",
        "Terraform state lock in prod-eu", [
    U("terraform in envs/prod-eu fails with a state lock error. Nobody else should be "
      "running it right now."),
    A(None, [bash("terraform -chdir=envs/prod-eu plan -lock-timeout=10s")]),
    R("╷\n│ Error: Error acquiring the state lock\n│\n│ Error message: "
      "ConditionalCheckFailedException: The conditional request failed\n"
      "│ Lock Info:\n│   ID:        6f1d2c3e-8a4b-4b1e-9f0a-2d7c5e8b1a90\n"
      "│   Path:      ledgerly-tfstate/prod-eu/terraform.tfstate\n"
      "│   Operation: OperationTypeApply\n│   Who:       runner@gha-runner-7f9c\n"
      "│   Version:   1.7.5\n│   Created:   2026-04-02 08:14:51.220383 +0000 UTC\n"
      "│   Info:\n│\n│ Terraform acquires a state lock to protect the state from being "
      "written\n│ by multiple users at the same time.\n╵", error=True, key="tf-lock"),
    A("The lock in the DynamoDB table was taken by a GitHub Actions runner "
      "(`runner@gha-runner-7f9c`) for an apply that started at 08:14 UTC, over three "
      "hours ago. Before touching it I'll check whether that job is still running.",
      key="tf-who"),
    A(None, [bash("gh run list --workflow terraform.yml --limit 5")]),
    R("STATUS     CONCLUSION  TITLE           BRANCH  EVENT              ID          ELAPSED  AGE\n"
      "completed  cancelled   apply prod-eu   main    workflow_dispatch  8549123311  1h2m9s   about 3 hours ago\n"
      "completed  success     plan prod-eu    main    pull_request       8548870102  2m40s    about 4 hours ago",
      key="tf-cancelled"),
    A("That run was cancelled after an hour, in the middle of the apply, so Terraform "
      "never got to release its lock. No process holds it anymore, so force-unlocking "
      "is safe.", key="tf-explain"),
    A(None, [bash("terraform -chdir=envs/prod-eu force-unlock -force 6f1d2c3e-8a4b-4b1e-9f0a-2d7c5e8b1a90")], key="tf-unlock-call"),
    R("Terraform state has been successfully unlocked!\n\nThe state has been unlocked, and "
      "Terraform commands should now be able to obtain a new lock on the remote state.",
      key="tf-unlocked"),
    A(None, [bash("terraform -chdir=envs/prod-eu plan -no-color | tail -25")]),
    R("  # aws_autoscaling_group.api will be updated in-place\n"
      "  ~ resource \"aws_autoscaling_group\" \"api\" {\n"
      "      ~ desired_capacity = 6 -> 8\n        id = \"ledgerly-api-prod-eu\"\n"
      "      ~ launch_template {\n          ~ version = \"13\" -> \"14\"\n        }\n    }\n\n"
      "  # aws_cloudwatch_metric_alarm.api_cpu_high will be updated in-place\n"
      "      ~ threshold = 70 -> 80\n\n"
      "Plan: 0 to add, 2 to change, 0 to destroy.", key="tf-plan"),
    U("why 2 changes? I didn't change anything"),
    A("Those are the rest of the cancelled apply. It applied PR #311 (api capacity 6 → "
      "8, launch template 14, CPU alarm at 80%) partially: the launch template "
      "version 14 was created, then the job was cancelled before the autoscaling group "
      "and the alarm were updated. The plan now finishes that same change; nothing new.",
      key="tf-drift"),
    U("ok apply it. and how do we stop this from happening again?"),
    A(None, [bash("terraform -chdir=envs/prod-eu apply -auto-approve -no-color | tail -3")]),
    R("aws_cloudwatch_metric_alarm.api_cpu_high: Modifications complete after 1s\n"
      "aws_autoscaling_group.api: Modifications complete after 7s\n\n"
      "Apply complete! Resources: 0 added, 2 changed, 0 destroyed.", key="tf-apply"),
    A("Applied. To prevent it: the terraform workflow gets `concurrency: {group: "
      "tf-${{ inputs.env }}, cancel-in-progress: false}` so a second run waits in line "
      "instead of racing, and RUNBOOK.md now says: never cancel a running apply; if a "
      "runner dies anyway, confirm the run is gone with `gh run list`, then `terraform "
      "force-unlock <lock ID>`.",
      [edit(".github/workflows/terraform.yml", "jobs:\n",
            "concurrency:\n  group: tf-${{ inputs.env }}\n  cancel-in-progress: false\njobs:\n")],
      key="tf-prevent"),
    R("Applied 1 edit to .github/workflows/terraform.yml (+3 -0)."),
    U("we're still on terraform 1.7.5 everywhere?"),
    A(None, [bash("grep -rn 'required_version' envs/*/versions.tf")]),
    R("envs/prod-eu/versions.tf:2:  required_version = \"~> 1.7.5\"\n"
      "envs/prod-us/versions.tf:2:  required_version = \"~> 1.7.5\"\n"
      "envs/staging/versions.tf:2:  required_version = \">= 1.6\""),
    A("prod-eu and prod-us pin `~> 1.7.5`; staging only says `>= 1.6`, so staging can "
      "drift ahead. I'd pin staging to `~> 1.7.5` too so the state file format can't be "
      "upgraded by a newer binary there first.", key="tf-versions"),
])

session("docsearch-bleve", INFRA, INFRA_B, "2026-04-10T13:05:27.630",
        "docsearch crashes after go get -u", [
    U("docsearch (cmd/docsearch, our runbook search) crashes at startup on the query "
      "server since the nightly reindex. I ran `go get -u ./...` yesterday in this repo."),
    A(None, [bash("ssh docs-1 journalctl -u docsearch -n 20 --no-pager")]),
    R("Apr 10 12:58:03 docs-1 docsearch[48211]: panic: error opening bleve index: unknown "
      "segment type: zap, version: 16\n"
      "Apr 10 12:58:03 docs-1 docsearch[48211]: goroutine 1 [running]:\n"
      "Apr 10 12:58:03 docs-1 docsearch[48211]: main.mustOpen({0x7ffd3a1c, 0x27})\n"
      "Apr 10 12:58:03 docs-1 docsearch[48211]:         /srv/infra/deploy-tools/cmd/docsearch/main.go:58 +0x1c5\n"
      "Apr 10 12:58:03 docs-1 docsearch[48211]: main.main()\n"
      "Apr 10 12:58:03 docs-1 systemd[1]: docsearch.service: Main process exited, code=exited, status=2/INVALIDARGUMENT",
      error=True, key="bleve-panic"),
    A(None, [bash("git diff HEAD~1 -- go.mod | grep bleve")]),
    R("-\tgithub.com/blevesearch/bleve/v2 v2.3.10\n+\tgithub.com/blevesearch/bleve/v2 v2.4.2\n"
      "-\tgithub.com/blevesearch/zapx/v15 v15.3.13\n+\tgithub.com/blevesearch/zapx/v15 v15.3.16\n"
      "+\tgithub.com/blevesearch/zapx/v16 v16.0.12", key="bleve-diff"),
    A("The two halves are on different bleve versions. Your `go get -u` moved bleve from "
      "v2.3.10 to v2.4.2, and the nightly reindex job (it builds from main) rebuilt "
      "runbooks.bleve with v2.4.2, which writes zap v16 segments. The query server "
      "still runs last week's binary built with v2.3.10, which only knows zap up to v15, "
      "so it cannot open the new index and panics in `mustOpen`.", key="bleve-cause"),
    U("just pin bleve back for now, we'll upgrade both together later"),
    A(None, [bash("go get github.com/blevesearch/bleve/v2@v2.3.10 && go mod tidy && "
                  "grep -n 'bleve\\|zapx' go.mod")]),
    R("go: downgraded github.com/blevesearch/bleve/v2 v2.4.2 => v2.3.10\n"
      "go: removing github.com/blevesearch/zapx/v16 v16.0.12\n"
      "12:\tgithub.com/blevesearch/bleve/v2 v2.3.10\n"
      "41:\tgithub.com/blevesearch/zapx/v15 v15.3.13 // indirect", key="bleve-pinned"),
    A("bleve is back at v2.3.10 and zapx/v16 is gone. `go get -u` would bump it again, "
      "so I added a check to CI, scripts/check-pins.sh, that fails when go.mod's bleve "
      "version differs from the one in `deploy/pins.txt` (`github.com/blevesearch/bleve/v2 "
      "v2.3.10`, with a comment that the query server and the indexer must move together).",
      [write("scripts/check-pins.sh",
             "#!/bin/sh\n# The indexer and the query server read one index: their bleve versions must match.\n"
             "set -eu\nwant=$(grep bleve deploy/pins.txt)\n"
             "have=$(go list -m github.com/blevesearch/bleve/v2)\n"
             "[ \"$want\" = \"$have\" ] || { echo \"bleve is $have, pinned $want\"; exit 1; }\n")],
      key="bleve-check"),
    R("Wrote scripts/check-pins.sh (7 lines)."),
    U("now rebuild the index so the server starts again"),
    A(None, [bash("ssh docs-1 'sudo systemctl stop docsearch-reindex.timer && sudo -u docsearch "
                  "/usr/local/bin/docsearch -reindex -src /srv/runbooks -index /var/lib/docsearch/runbooks.bleve'")]),
    R("reindex: removed /var/lib/docsearch/runbooks.bleve\n"
      "reindex: 1,284 documents from /srv/runbooks in 41.8s\n"
      "reindex: index size 88.4 MiB, 7 segments (zap v15)", key="bleve-reindex"),
    A(None, [bash("ssh docs-1 'sudo systemctl restart docsearch && sleep 2 && curl -s "
                  "localhost:7700/search?q=force-unlock | jq .total'")]),
    R("3", key="bleve-ok"),
    A("The server is back and answers: a search for `force-unlock` returns 3 runbooks. "
      "The reindex timer stays stopped until the fixed indexer is deployed, otherwise "
      "tonight's run would write v16 segments again.", key="bleve-timer"),
    U("deploy the indexer with the pin then and turn the timer back on"),
    A(None, [bash("make deploy-docsearch HOST=docs-1 && ssh docs-1 'sudo systemctl start "
                  "docsearch-reindex.timer && systemctl list-timers docsearch-reindex.timer --no-pager'")]),
    R("go build -o bin/docsearch ./cmd/docsearch\nscp bin/docsearch docs-1:/usr/local/bin/docsearch\n"
      "NEXT                        LEFT     LAST PASSED UNIT                    ACTIVATES\n"
      "Sat 2026-04-11 02:30:00 UTC 13h left -    -      docsearch-reindex.timer docsearch-reindex.service", key="bleve-schedule"),
    A("Both binaries now run bleve v2.3.10 and the nightly reindex is scheduled again "
      "for 02:30 UTC.", key="bleve-schedule-msg"),
    U("what would the proper upgrade to 2.4 look like?"),
    A("Deploy the query server with v2.4.2 first: it reads both zap v15 and v16, so it "
      "keeps serving the old index. Then upgrade the indexer, whose next run writes v16. "
      "Reader first, writer second; change deploy/pins.txt in the same PR.",
      key="bleve-upgrade-order"),
])

session("cert-renewal", INFRA, INFRA_B, "2026-04-16T06:48:50.118",
        "status.ledgerly.io certificate expired", [
    U("status.ledgerly.io shows an expired certificate in the browser. cert-manager "
      "should have renewed it weeks ago."),
    A(None, [bash("kubectl --context ops -n status get certificate,certificaterequest,order")]),
    R("NAME                                             READY   SECRET                   AGE\n"
      "certificate.cert-manager.io/status-ledgerly-io   False   status-ledgerly-io-tls   412d\n\n"
      "NAME                                                          APPROVED   DENIED   READY   ISSUER             AGE\n"
      "certificaterequest.cert-manager.io/status-ledgerly-io-8mw2q   True                False   letsencrypt-prod   3h\n\n"
      "NAME                                                        STATE     AGE\n"
      "order.acme.cert-manager.io/status-ledgerly-io-8mw2q-3711450   errored   3h"),
    A(None, [bash("kubectl --context ops -n status describe order status-ledgerly-io-8mw2q-3711450 | tail -6")]),
    R("Status:\n  Reason:  Failed to create Order: 429 urn:ietf:params:acme:error:rateLimited: "
      "Error creating new order :: too many certificates (5) already issued for this exact set "
      "of domains in the last 168h0m0s, retry after 2026-04-21T09:30:12Z: see "
      "https://letsencrypt.org/docs/rate-limits/#new-certificates-per-exact-set-of-hostnames\n"
      "  State:   errored\nEvents:  <none>", error=True, key="cert-ratelimit"),
    A("Let's Encrypt refuses new orders: at most 5 certificates per week for the exact "
      "same set of names, and we've used them. Something re-issued this certificate far "
      "more often than every 60 days. Checking the Certificate's history.",
      [bash("kubectl --context ops -n status get events --field-selector "
            "involvedObject.name=status-ledgerly-io --sort-by=.lastTimestamp | tail -8")]),
    R("LAST SEEN   TYPE     REASON     OBJECT                                   MESSAGE\n"
      "6d          Normal   Issuing    certificate/status-ledgerly-io   Fields on existing CertificateRequest resource not up to date: [spec.secretTemplate]\n"
      "5d          Normal   Issuing    certificate/status-ledgerly-io   Fields on existing CertificateRequest resource not up to date: [spec.secretTemplate]\n"
      "3d          Normal   Issuing    certificate/status-ledgerly-io   Fields on existing CertificateRequest resource not up to date: [spec.secretTemplate]\n"
      "3h          Warning  Failed     certificate/status-ledgerly-io   The certificate request has failed to complete and will be retried: rateLimited"),
    A("Every deploy of the status page changed the Certificate's `secretTemplate`: the "
      "Helm chart stamps a `deployedAt` annotation into it, and cert-manager treats any "
      "change there as a reason to issue a new certificate. Five deploys in a week used "
      "up the Let's Encrypt quota, and the renewal that was actually due then failed.",
      key="cert-cause"),
    U("what can we do right now? the page is down for customers"),
    A("Let's Encrypt won't issue for this name until 2026-04-21 09:30 UTC. Fastest: a "
      "second ACME issuer. ZeroSSL works with cert-manager using EAB credentials; I'll "
      "create a `zerossl-prod` ClusterIssuer with the EAB key in the `zerossl-eab` "
      "secret and point the Certificate at it.",
      [bash("kubectl --context ops apply -f k8s/cert-manager/clusterissuer-zerossl.yaml && "
            "kubectl --context ops -n status patch certificate status-ledgerly-io --type merge "
            "-p '{\"spec\":{\"issuerRef\":{\"name\":\"zerossl-prod\",\"kind\":\"ClusterIssuer\"}}}'")],
      key="cert-zerossl"),
    R("clusterissuer.cert-manager.io/zerossl-prod created\n"
      "certificate.cert-manager.io/status-ledgerly-io patched"),
    A(None, [bash("kubectl --context ops -n status wait certificate/status-ledgerly-io "
                  "--for=condition=Ready --timeout=5m && echo | openssl s_client -connect "
                  "status.ledgerly.io:443 -servername status.ledgerly.io 2>/dev/null | "
                  "openssl x509 -noout -issuer -enddate")]),
    R("certificate.cert-manager.io/status-ledgerly-io condition met\n"
      "issuer=C = AT, O = ZeroSSL, CN = ZeroSSL ECC Domain Secure Site CA\n"
      "notAfter=Jul 15 23:59:59 2026 GMT", key="cert-ready"),
    A("status.ledgerly.io serves a valid ZeroSSL certificate again, good until 15 July.", key="cert-ready-msg"),
    U("and the real fix?"),
    A("Remove `deployedAt` from the chart's `secretTemplate.annotations` (it belongs on "
      "the Deployment's pod template, where it already is). After 2026-04-21 we can "
      "move back to letsencrypt-prod; changes to issuers get tried on "
      "`letsencrypt-staging` first, whose limits are far higher.",
      [edit("charts/status-page/templates/certificate.yaml",
            "      deployedAt: {{ now | quote }}\n", "")],
      key="cert-fix"),
    R("Applied 1 edit to charts/status-page/templates/certificate.yaml (+0 -1)."),
    U("add an alert so we hear about it before customers do"),
    A("cert-manager exports `certmanager_certificate_expiration_timestamp_seconds`; "
      "the new rule fires when any certificate expires in under 14 days or a Certificate "
      "has been not Ready for an hour.",
      [write("k8s/monitoring/rules/certs.yaml",
             "- alert: CertificateExpiringSoon\n  expr: certmanager_certificate_expiration_timestamp_seconds - time() < 14*24*3600\n"
             "  for: 1h\n- alert: CertificateNotReady\n"
             "  expr: certmanager_certificate_ready_status{condition=\"False\"} == 1\n  for: 1h\n")],
      key="cert-alert"),
    R("Wrote k8s/monitoring/rules/certs.yaml (6 lines)."),
    A("The alerts route to #ops-alerts like the other cluster rules."),
])

# ---------------------------------------------------------------- questions
# (query, [evidence keys], note). Any listed entry counts as the answer.

QUESTIONS = [
    # flaky-reconcile
    ("why was the reconcile batch test failing intermittently?", ["flaky-cause"]),
    ("what made TestReconcileBatch nondeterministic?", ["flaky-cause"]),
    ("did we decide to sort the payments in the test or in production code, and why?",
     ["flaky-decision"]),
    ("how often did the reconcile test fail when we ran it a couple hundred times?",
     ["flaky-count", "flaky-repro"], "7 of 200 runs"),
    ("which clock library did we inject to avoid the midnight problem?", ["flaky-clock"]),
    ("what goes wrong if the batch job starts just before midnight UTC?", ["flaky-clock"]),
    ("what's the commit hash of the reconcile fix?", ["flaky-commit", "flaky-commit-msg"]),
    ("did the race detector report anything for the flaky reconcile test?",
     ["flaky-count", "flaky-cause"]),
    # payments-migration
    ("why did the settled_at migration fail on staging?", ["mig-fail", "mig-cause"]),
    ("what SQLSTATE did goose report when the index migration ran?", ["mig-fail"]),
    ("why can't we simply build the index concurrently inside a goose migration?",
     ["mig-cause", "mig-fix"]),
    ("how did we split up the payments column migration?", ["mig-fix"]),
    ("how long did building the settled_at index take on staging?",
     ["mig-ok", "mig-ok-summary"]),
    ("how many rows need backfilling in production?", ["mig-dryrun"]),
    ("how long will the backfill take on prod, and when should it be started?",
     ["mig-estimate"]),
    ("how do we undo the settled_at change if something goes wrong?", ["mig-rollback"]),
    ("which pull request has the settled_at migration?", ["mig-pr", "mig-pr-msg"]),
    ("what batch size does the backfill job use?", ["mig-fix", "mig-dryrun", "mig-estimate"]),
    # summary-latency
    ("why did the ledger summary endpoint get slow after v1.14.0?", ["perf-cause"]),
    ("which commit introduced the N+1 queries?", ["perf-cause"]),
    ("how many times had the account_balances query been called?", ["perf-stats"]),
    ("what were the benchmark numbers after batching the balance lookups?",
     ["perf-bench", "perf-json"]),
    ("what did we change in how Money is marshalled to JSON?", ["perf-json"]),
    ("what's the p99 latency on the canary after the fix?", ["perf-p99", "perf-p99-raw"]),
    ("how do we make sure the per-account query loop doesn't come back?",
     ["perf-guard", "perf-guard-msg"]),
    ("what did the CPU profile show for the slow summary requests?", ["perf-pprof"]),
    # config-refactor
    ("how did we break parseConfig up into smaller pieces?", ["ref-plan"]),
    ("why did the env override tests fail after removing viper?", ["ref-fail", "ref-cause"]),
    ("how are nested environment variables like LEDGERLY_DB_MAX_CONNS mapped now?",
     ["ref-cause"]),
    ("what happens to old config files that still contain metrics_port?", ["ref-unknown"]),
    ("which viper version did we remove?", ["ref-tidy"]),
    ("how much smaller did the ledgerly binary get without viper?", ["ref-size"]),
    ("where are the configuration environment variables documented?",
     ["ref-envdoc", "ref-envdoc-msg"]),
    ("how does config validation report several problems at once?", ["ref-plan"]),
    # github-actions-ci
    ("why did the integration tests fail on the first GitHub Actions run?",
     ["ci-fail", "ci-cause"]),
    ("how did we make the CI job wait until Postgres was ready?", ["ci-cause"]),
    ("why was linting so slow in CI?", ["ci-lint"]),
    ("which golangci-lint version is pinned?", ["ci-lint"]),
    ("which Go versions do the unit tests run on?", ["ci-matrix"]),
    ("what broke when we added Go 1.24 to the matrix?", ["ci-vet", "ci-vet-fix"]),
    ("how did we fix the non-constant format string vet error?", ["ci-vet-fix"]),
    ("what's left to do after deleting the CircleCI config?", ["ci-circle"]),
    # ledgerly-onboarding
    ("how do I start ledgerly on my machine?", ["onb-run", "onb-docs"]),
    ("which port does the local development Postgres listen on?", ["onb-run", "onb-docs"]),
    ("how should amounts of money be stored?", ["onb-money"],
     "a user's statement is the evidence"),
    ("what's our convention for timestamps in the database and the API?", ["onb-time"],
     "a user's statement is the evidence"),
    ("how does splitting an amount into installments handle the remainder?", ["onb-split"]),
    ("does the split helper work for yen?", ["onb-jpy"]),
    ("which currencies have three decimal digits?", ["onb-jpy"]),
    ("did the linter find any issues in the Money.Split change?", ["onb-lint"],
     "a user-run bashExecution"),
    # npm-release-230
    ("why couldn't we publish with provenance from the laptop?",
     ["pub-prov-err", "pub-prov-expl"]),
    ("what did the E402 payment required error mean when publishing?",
     ["pub-402", "pub-access"]),
    ("how do we make the scoped package publish publicly by default?", ["pub-access"]),
    ("did the 2.3.0 release actually go out to npm?", ["pub-ok"]),
    ("how is the package published from CI now?", ["pub-workflow"]),
    ("how does the release workflow authenticate to npm without a one-time password?",
     ["pub-workflow"]),
    ("where was the provenance statement for 2.3.1 logged?", ["pub-sigstore"]),
    ("what permission does the workflow need to sign provenance?",
     ["pub-workflow", "pub-prov-expl"]),
    # crlf-multiline
    ("why did multiline strings keep a carriage return in Windows files?", ["crlf-cause"]),
    ("which lexer function had the line ending bug?", ["crlf-cause"]),
    ("what happens now with a bare CR inside a string?", ["crlf-lonecr"]),
    ("why did a lexer test start failing after the CRLF fix?",
     ["crlf-lonecr-fail", "crlf-lonecr"]),
    ("how many tests does tiny-toml have?", ["crlf-tests"]),
    ("how did tiny-toml do against the official toml-test suite?",
     ["crlf-suite", "crlf-suite-summary"]),
    ("which issue tracks the datetime failures?", ["crlf-suite-summary"]),
    ("how do we stop git from converting the CRLF fixture's line endings?",
     ["crlf-gitattributes"]),
    # esm-cjs-exports
    ("why do CommonJS users get ERR_REQUIRE_ESM?", ["esm-cause"]),
    ("what formats was tsup building before the fix?", ["esm-pkg", "esm-cause"]),
    ("why must the types condition come first in the exports map?",
     ["esm-publint", "esm-types-order"]),
    ("did are-the-types-wrong report any problems with the package?", ["esm-attw"]),
    ("do we still support Node 16?", ["esm-engines"]),
    ("which version shipped the dual CJS and ESM build?", ["esm-release", "esm-release-msg"]),
    ("how did we check that require() works from a CommonJS project?",
     ["esm-cjs-check", "esm-cjs-ok"]),
    # rollout-timeout
    ("why did the ledgerly 1.15.0 rollout in prod-eu time out?",
     ["dep-cause", "dep-429", "dep-note"]),
    ("what error did kubelet report while pulling the image?", ["dep-429"]),
    ("why were all the nodes hitting the registry's rate limit?", ["dep-cause"]),
    ("how did we get 1.15.0 deployed despite the registry throttling us?", ["dep-fix"]),
    ("how long did the rollout take from the mirror?", ["dep-ok"]),
    ("why did the pipeline give up after five minutes when the progress deadline is ten?",
     ["dep-timeouts"]),
    ("which image pull policy do we use now, and why?", ["dep-fix"]),
    ("was the readiness probe what stalled the deploy?", ["dep-cause"],
     "the abandoned branch guessed the probe; the active one says it was not"),
    ("was there any customer impact from the stalled deployment?", ["dep-note"]),
    # tf-state-lock
    ("who was holding the terraform lock in prod-eu?", ["tf-lock", "tf-who"]),
    ("why was the terraform state still locked?", ["tf-explain", "tf-cancelled"]),
    ("what was the lock ID we force-unlocked?", ["tf-lock", "tf-unlock-call"]),
    ("why did the plan show changes nobody had made?", ["tf-drift"]),
    ("how did we keep two terraform runs from racing each other?", ["tf-prevent"]),
    ("what should you do if a terraform apply job gets cancelled?", ["tf-prevent"]),
    ("which terraform version are the prod environments pinned to?", ["tf-versions"]),
    ("how many resources changed when we applied after unlocking?", ["tf-apply", "tf-plan"]),
    # docsearch-bleve
    ("which version of bleve did we pin?", ["bleve-pinned", "bleve-check"]),
    ("why did docsearch crash after the dependency upgrade?", ["bleve-cause", "bleve-panic"]),
    ("what does 'unknown segment type zap version 16' mean?", ["bleve-cause"]),
    ("how do we stop go get -u from bumping bleve again?", ["bleve-check"]),
    ("in what order should the indexer and the query server be upgraded to bleve 2.4?",
     ["bleve-upgrade-order"]),
    ("why was the reindex timer turned off?", ["bleve-timer"]),
    ("how long did rebuilding the runbook index take?", ["bleve-reindex"]),
    ("when does the nightly reindex run?", ["bleve-schedule", "bleve-schedule-msg"]),
    # cert-renewal
    ("why couldn't cert-manager renew the status page certificate?",
     ["cert-ratelimit", "cert-cause"]),
    ("what kept reissuing the status.ledgerly.io certificate?", ["cert-cause"]),
    ("when does the Let's Encrypt limit reset for the status page?",
     ["cert-ratelimit", "cert-zerossl"]),
    ("which CA did we switch to temporarily?", ["cert-zerossl", "cert-ready"]),
    ("when does the temporary certificate expire?", ["cert-ready", "cert-ready-msg"]),
    ("how will we hear about expiring certificates in the future?", ["cert-alert"]),
    ("how did we fix the chart so certificates aren't reissued on every deploy?",
     ["cert-fix"]),
    # must-abstain: nothing in the sessions answers these
    ("how did we configure the Redis cache eviction policy?", []),
    ("why did the Android build fail on the signing step?", []),
    ("what did we decide about GraphQL federation for the gateway?", []),
    ("which Kafka partition count did we choose for the events topic?", []),
    ("how do we rotate the Stripe webhook signing secret?", []),
    ("when did we migrate the frontend from webpack to vite?", []),
    ("why was the Elasticsearch cluster status yellow?", []),
    ("how do we run the iOS snapshot tests?", []),
    ("what SLA did we promise for mobile push notifications?", []),
    ("who approved moving analytics to Snowflake?", []),
    ("how did we fix the memory leak in the websocket gateway?", []),
    ("which Python version does the ML training pipeline use?", []),
]
