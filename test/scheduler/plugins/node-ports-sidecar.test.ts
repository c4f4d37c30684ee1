// NodePorts counts the host ports of sidecars (restartable init containers) on both sides — the
// pod being scheduled and the pods already on the node — as upstream's NodeInfo and NodePorts
// PreFilter do through pkg/scheduler/util GetHostPorts (v1.34); plain init containers hold none.
import { describe, expect, it } from 'vitest';
import type { Container, Pod } from '../../../src/api/types.js';
import { SchedulerCore } from '../../../src/scheduler/index.js';
import { nodeOf } from '../../helpers/builders.js';

const REASON = "node(s) didn't have free ports for the requested pod ports";

function pod(name: string, opts: { node?: string; app?: number; sidecar?: number; init?: number }): Pod {
  const port = (p: number) => [{ containerPort: p, hostPort: p }];
  const containers: Container[] = [{ name: 'app', ...(opts.app ? { ports: port(opts.app) } : {}) }];
  const initContainers: Container[] = [];
  if (opts.sidecar)
    initContainers.push({ name: 'proxy', restartPolicy: 'Always', ports: port(opts.sidecar) });
  if (opts.init) initContainers.push({ name: 'setup', ports: port(opts.init) });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { nodeName: opts.node, containers, ...(initContainers.length ? { initContainers } : {}) },
  };
}

describe('NodePorts and sidecar host ports', () => {
  const cases: [string, Parameters<typeof pod>[1], Parameters<typeof pod>[1], boolean][] = [
    ['incoming sidecar port taken by a running container', { sidecar: 8080 }, { app: 8080 }, false],
    ['incoming container port taken by a running sidecar', { app: 8080 }, { sidecar: 8080 }, false],
    ['sidecar against sidecar', { sidecar: 9090 }, { sidecar: 9090 }, false],
    ['different ports', { sidecar: 8080 }, { sidecar: 8081, app: 8082 }, true],
    ['plain init container ports are released before the app starts', { init: 8080 }, { app: 8080 }, true],
    ['a running pod plain init container holds nothing', { app: 8080 }, { init: 8080 }, true],
  ];
  for (const kernel of ['js', 'wasm'] as const)
    for (const [name, incoming, running, fits] of cases)
      it(`${name} (${kernel})`, () => {
        const core = new SchedulerCore({
          kernel,
          nodes: [nodeOf('n1', { capacity: { cpu: '4', memory: '8Gi', pods: '110' } })],
          pods: [pod('running', { ...running, node: 'n1' })],
        });
        const out = core.schedule(pod('incoming', incoming));
        if (fits) expect(out.kind === 'scheduled' && out.nodeName).toBe('n1');
        else {
          expect(out.kind).toBe('unschedulable');
          if (out.kind === 'unschedulable') expect(out.fitError.message).toContain(`1 ${REASON}`);
        }
      });
});
