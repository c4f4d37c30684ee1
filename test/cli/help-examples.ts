// Every example in every command's --help, and every kubesim command line in the README's and the
// docs' code blocks, run against the built CLI as written, from a folder holding the files they name
// (harness.ts exampleFolder): exit 0 and no stack trace. A line that is a synopsis (placeholders
// like <file>, [--flag], …) is not run; its flags must exist. Lines that cannot run here are listed
// in RUN_ELSEWHERE with the reason, and must still name only flags their command has.
//
// The examples run in SHARDS test files (help-examples-N.test.ts, each calling describeExamples):
// the suite's workers take them in parallel; the checks over the whole list run in shard 1.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/index.js';
import {
  cli,
  exampleFolder,
  flagsOf,
  helpExamples,
  helpText,
  leafCommands,
  resolve,
  root,
  STACK_FRAME,
  shell,
} from './harness.js';
import { existsSync } from 'node:fs';

/** Examples that do not run in the test suite, each with why and what covers it instead. */
const RUN_ELSEWHERE: Record<string, string> = {
  'kubectl get pods -A -o yaml | kubesim validate -': 'needs a live cluster for kubectl',
  'kubesim demo': '2,000 nodes, 40 s or more: `kubesim demo --nodes 200 --events 20` runs the same story',
  'kubesim demo --nodes 5000 -o html --out demo.html':
    'minutes at 5,000 nodes; test/report/html-chromium.test.ts builds the demo report at its default size',
  'kubesim proxy render --generate 10000x10 --churn 1 --repeat 5 -o table':
    'a minute (5 churn rounds on 100k endpoints); the same flags at 1000x10 run below',
  'kubesim bench all --quick -o json --out bench.json': 'minutes: every suite',
  'kubesim store record --builtin all --out-dir traces/':
    'a minute (8 traces, each on a fresh etcd); test/store/etcd-*.test.ts record and replay every set',
  'kubesim snapshot --kubeconfig ~/.kube/config --context prod -o table': 'needs a live cluster',
  'kubesim serve --etcd-servers http://127.0.0.1:2379   # durable: restart to resume the cluster':
    'needs an etcd on 127.0.0.1:2379: test/server/serve-etcd.test.ts starts one and runs serve --etcd-servers on it',
  'kubesim serve --etcd-servers http://127.0.0.1:2379 --kubeconfig-out kc':
    'needs an etcd on 127.0.0.1:2379: test/server/serve-etcd.test.ts starts one and runs serve --etcd-servers on it',
  "kubesim snapshot --kubeconfig kubeconfig --out snapshot.yaml   # e.g. kubesim serve's --kubeconfig-out":
    'needs a running kubesim serve: test/server/snapshot.test.ts runs it so',
  'kubesim record --kubeconfig kubeconfig --duration 10m --out trace.yaml':
    'needs a running cluster for 10 minutes: test/server/record.test.ts records kubesim serve for 15 s',
  'kubesim simulate examples/scenarios/node-failure-eviction.yaml --replay trace.yaml':
    'needs a trace recorded from a live cluster: test/server/record.test.ts records one and replays it',
  'kubesim simulate examples/scenarios/node-failure-eviction.yaml --replay trace.yaml   # trace: kubesim record':
    'needs a trace recorded from a live cluster: test/server/record.test.ts records one and replays it',
};

/** Conditions some examples need; the reason they cannot run here, or '' when they can. */
function cannotRunHere(line: string): string {
  if (/^(sudo )?kubesim proxy check/.test(line) && process.getuid?.() !== 0)
    return 'proxy check needs root (it creates a network namespace)';
  if (/kubesim store record/.test(line) && !existsSync('/usr/bin/etcd') && !process.env.KUBESIM_ETCD_BIN)
    return 'store record needs the etcd binary';
  return '';
}

interface Example {
  /** where it is written */
  source: string;
  /** the line, as written (after a shell prompt) */
  line: string;
}

const program = await buildProgram();
const leaves = await leafCommands();

const fromHelp: Example[] = leaves.flatMap((l) =>
  helpExamples(helpText(l.cmd)).map((line) => ({ source: `kubesim ${l.path.join(' ')} --help`, line })),
);

/** README.md and docs/**.md: the kubesim command lines of their code blocks. */
function docFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? docFiles(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}
const fromDocs: Example[] = ['README.md', ...docFiles(join(root, 'docs'))].flatMap((file) => {
  const rel = file.replace(`${root}/`, '');
  const out: Example[] = [];
  const push = (line: string) => {
    if (/^(sudo )?kubesim [a-z-]/.test(line) || / \| kubesim /.test(line)) out.push({ source: rel, line });
  };
  let fenced = false;
  /** a command continued on the next line with a backslash */
  let continued: string | undefined;
  for (const raw of readFileSync(file.startsWith('/') ? file : join(root, file), 'utf8').split('\n')) {
    if (/^\s*```/.test(raw)) {
      fenced = !fenced;
      continue;
    }
    if (!fenced) continue;
    if (continued !== undefined) {
      continued += ` ${raw.trim().replace(/\\$/, '').trim()}`;
      if (!raw.trimEnd().endsWith('\\')) {
        push(continued);
        continued = undefined;
      }
      continue;
    }
    // a prompt, npx, and the repository's own entry point are all `kubesim`
    const line = raw
      .trim()
      .replace(/^\$ /, '')
      .replace(/^npx kubesim /, 'kubesim ')
      .replace(/^node dist\/src\/cli\/index\.js /, 'kubesim ');
    if (line.endsWith('\\')) continued = line.replace(/\\$/, '').trim();
    else push(line);
  }
  return out;
});

/** Placeholders make a line a synopsis, not a command. */
const isSynopsis = (line: string) => /<[^>]+>|\[[^\]]*\]|…/.test(line.replace(/#.*$/, ''));

/** The kubesim invocations in a line (after pipes and &&), as words. */
function invocations(line: string): string[][] {
  return line
    .replace(/\s#.*$/, '')
    .split(/\||&&|;/)
    .map((part) => part.trim().replace(/^sudo /, ''))
    .filter((part) => part.startsWith('kubesim '))
    .map((part) => part.split(/\s+/).slice(1));
}

/** Flags a line passes that its command does not have. */
function unknownFlags(line: string): string[] {
  return invocations(line).flatMap((words) => {
    const { path, cmd } = resolve(program, words);
    const flags = flagsOf(cmd);
    return words
      .filter((w) => /^--?[a-zA-Z]/.test(w))
      .map((w) => w.replace(/=.*$/, ''))
      .filter((w) => !flags.has(w))
      .map((w) => `kubesim ${path.join(' ')}: ${w}`);
  });
}

const all = [...fromHelp, ...fromDocs];
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** How many files the runnable examples are spread over; each file is one shard. */
export const SHARDS = 3;

/**
 * The tests of shard `shard` (1 … SHARDS): every SHARDS-th distinct runnable example, so that
 * examples next to each other in one doc (often the heavy ones, such as docs/store-etcd.md's
 * recordings) land in different files; shard 1 also checks the list as a whole.
 */
export function describeExamples(shard: number): void {
  describe.skipIf(!existsSync(cli))(
    `every example in --help and the docs (shard ${shard} of ${SHARDS})`,
    () => {
      if (shard === 1) wholeList();
      runnableShard(shard);
    },
  );
}

function wholeList(): void {
  it('finds the examples (every command with options shows at least one, the docs some)', () => {
    expect(fromHelp.length).toBeGreaterThan(20);
    expect(fromDocs.length).toBeGreaterThan(15);
    const without = leaves
      .filter((l) => helpExamples(helpText(l.cmd)).length === 0 && l.path[0] !== 'bench')
      .map((l) => l.path.join(' '));
    expect(without, 'commands whose --help shows no example').toEqual([]);
  });

  it('the list of examples run elsewhere names only examples that exist', () => {
    const lines = new Set(all.map((e) => e.line));
    expect(Object.keys(RUN_ELSEWHERE).filter((l) => !lines.has(l))).toEqual([]);
  });

  it('every example names only flags its command has (synopses and examples run elsewhere too)', () => {
    const bad = all.flatMap((e) => unknownFlags(e.line).map((f) => `${e.source}: ${f} in: ${e.line}`));
    expect(bad).toEqual([]);
  });

  it(`help-examples-1 … ${SHARDS}.test.ts each run their shard: no example is left out`, () => {
    for (let n = 1; n <= SHARDS; n++) {
      const file = join(root, 'test', 'cli', `help-examples-${n}.test.ts`);
      expect(existsSync(file), file).toBe(true);
      expect(readFileSync(file, 'utf8')).toContain(`describeExamples(${n});`);
    }
  });
}

/** The examples to run: not synopses, not run elsewhere, each distinct line once. */
function distinctRunnable(): Example[] {
  // docs/bench/ records benchmark runs (minutes each, the recipe behind a published number): their
  // flags are checked above, the runs are not repeated here
  const runnable = all.filter(
    (e) => !isSynopsis(e.line) && !(e.line in RUN_ELSEWHERE) && !e.source.startsWith('docs/bench/'),
  );
  const seen = new Set<string>();
  return runnable.filter((e) => !seen.has(e.line) && seen.add(e.line));
}

function shardOf(shard: number): Example[] {
  return distinctRunnable().filter((_, i) => i % SHARDS === shard - 1);
}

function runnableShard(shard: number): void {
  for (const e of shardOf(shard)) {
    const reason = cannotRunHere(e.line);
    it.skipIf(reason !== '')(
      `${e.source}: ${e.line}${reason ? ` (${reason})` : ''}`,
      () => {
        const command = invocations(e.line)[0]?.[0] ?? 'default';
        const dir = exampleFolder(command);
        dirs.push(dir);
        // bash reads a trailing comment as one too; it goes here so the line can be composed with more
        let line = e.line.replace(/\s#.*$/, '');
        if (process.getuid?.() === 0) line = line.replace(/^sudo /, '');
        const r = line.startsWith('kubesim serve') ? serveUntilReady(line, dir) : shell(line, dir, 240_000);
        expect(r.stderr).not.toMatch(STACK_FRAME);
        expect(r.stderr).not.toMatch(/internal error/);
        expect(r.status, `exit ${r.status}${r.signal ? ` (${r.signal})` : ''}: ${r.stderr}`).toBe(0);
      },
      300_000,
    );
  }
}

/**
 * `kubesim serve` runs until stopped: it passes when it prints its URL, and it is then stopped
 * (SIGTERM, as a user's Ctrl-C or a service manager would). Both waits end on their condition;
 * their deadlines (180 s to start, 60 s to stop) are hang guards: at a load average of 25 a start
 * can take longer than the 30 s these loops once allowed by counting tries.
 */
function serveUntilReady(line: string, dir: string) {
  const r = shell(
    `${line} > serve.out 2> serve.err & pid=$!
     end=$((SECONDS + 180)); while [ $SECONDS -lt $end ]; do grep -q '^kubesim serve: http' serve.out && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
     grep -q '^kubesim serve: http' serve.out; ready=$?
     kill -TERM $pid 2>/dev/null
     end=$((SECONDS + 60)); while [ $SECONDS -lt $end ]; do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
     kill -0 $pid 2>/dev/null && { echo 'did not stop on SIGTERM' >&2; kill -KILL $pid; ready=1; }
     cat serve.err >&2; exit $ready`,
    dir,
    280_000,
  );
  return r;
}
