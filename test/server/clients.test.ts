// Official clients of other languages, from Debian's packages, against a fresh `kubesim serve`
// each: python3-kubernetes (its watch sends watch=True) and ruby-kubeclient (it watches through
// the legacy /api/v1/watch/ paths). Each session (test/server/clients/) lists, creates, patches,
// watches, and creates a CRD and custom resources; it exits non-zero on the first wrong answer.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServeProcess, builtCli, startServe } from './serve-process.js';

const HERE = join(import.meta.dirname, 'clients');

/** whether an interpreter can load the client library; in CI a missing one fails the suite */
function has(cmd: string, args: string[], what: string): boolean {
  const ok = spawnSync(cmd, args, { encoding: 'utf8' }).status === 0;
  if (!ok && process.env.CI) throw new Error(`${what} is not installed (.ci/run installs it)`);
  if (!ok) console.warn(`skipping the ${what} session: not installed`);
  return ok;
}

const python = has('/usr/bin/python3', ['-c', 'import kubernetes'], 'python3-kubernetes');
const ruby = has('ruby', ['-e', "require 'kubeclient'"], 'ruby-kubeclient');

describe.skipIf(!builtCli)('client libraries of other languages against kubesim serve', () => {
  let srv: ServeProcess | undefined;
  afterEach(async () => {
    await srv?.stop();
    srv = undefined;
  });
  const run = (cmd: string, args: string[]) => {
    const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} → ${r.status}\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };

  it.skipIf(!python)(
    'python3-kubernetes: list, create, patch, watch=True, CRD and custom objects',
    async () => {
      srv = await startServe(['--paused']);
      const out = run('/usr/bin/python3', [join(HERE, 'python_session.py'), srv.kubeconfig]);
      expect(out).toContain("watch events: ['MODIFIED cfg', 'DELETED cfg']");
      expect(out).toContain("custom object: {'size': 1} {'x': 'y'}");
      expect(out.trim().endsWith('ok')).toBe(true);
    },
    240_000,
  );

  it.skipIf(!ruby)(
    'ruby-kubeclient: list, create, patch, legacy /watch/ paths, CRD and custom resources',
    async () => {
      srv = await startServe(['--paused']);
      const out = run('ruby', [join(HERE, 'ruby_session.rb'), srv.url]);
      expect(out).toContain('watch events: ["MODIFIED cfg", "DELETED cfg"]');
      expect(out).toContain('custom resource: {:teeth=>13}');
      expect(out.trim().endsWith('ok')).toBe(true);
    },
    240_000,
  );
});
