// The nftables mode against the shared Proxier conformance suite; the real tool is `nft -c -f`
// in a network namespace of its own.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NftablesProxier } from '../../../src/proxy/renderers/nftables/proxier.js';
import { runProxierConformance } from '../conformance.js';
import { inFreshNetns, probe } from '../netns.js';

const dir = mkdtempSync(join(tmpdir(), 'kubesim-nft-conformance-'));

runProxierConformance({
  mode: 'nftables',
  newProxier: (state, opts) => new NftablesProxier(state, opts),
  realTool: {
    unavailable() {
      const r = inFreshNetns((ns) => probe(ns, 'nft', ['-c', '-f', '-'], 'add table ip kubesim-probe\n'));
      return 'skip' in r ? r.skip : r.value;
    },
    check(result) {
      const file = join(dir, 'sync.nft');
      writeFileSync(file, result.text);
      const r = inFreshNetns((ns) => ns.run('nft', ['-c', '-f', file]));
      if ('skip' in r) return r.skip;
      return r.value.status === 0 ? r.value.stderr : r.value.stderr || `exit ${r.value.status}`;
    },
  },
});
