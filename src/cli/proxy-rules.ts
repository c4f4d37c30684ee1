// How `kubesim proxy render` writes rules: each output's text, headed by "# kubesim: IPv6 full sync"
// when a render has several (syncs or families), followed by its artifacts. One function for the
// one-node and the --all-nodes renders, so a node's rules are the same bytes in both.
import type { IPFamily, ProxySyncResult } from '../proxy/index.js';
import { sortIptablesRules } from '../proxy/renderers/iptables/normalize.js';

export interface RulesOutput {
  family: IPFamily;
  result: Pick<ProxySyncResult, 'kind' | 'text' | 'chunks' | 'artifacts'>;
}

/**
 * The rules of `outputs` as byte chunks, in order, never joined into one string (a ruleset of
 * 100,000 services can be longer than V8's longest string); an artifact read as chunks (a streamed
 * ipvs sync's delta.ipvsadm) is read as the result is iterated. `sortIptables`: kube-proxy's
 * unit-test normalisation (sortIPTablesRules), which needs the text as a string.
 */
export function* rulesChunks(outputs: readonly RulesOutput[], sortIptables: boolean): Generator<Uint8Array> {
  const dual = new Set(outputs.map((x) => x.family)).size > 1;
  for (const { family, result } of outputs) {
    if (outputs.length > 1) yield Buffer.from(`# kubesim: ${dual ? `${family} ` : ''}${result.kind} sync\n`);
    if (sortIptables) yield Buffer.from(sortIptablesRules(result.text));
    else if (result.chunks) yield* result.chunks();
    else yield Buffer.from(result.text);
    for (const a of result.artifacts) {
      if (a.chunks) {
        yield Buffer.from(`# kubesim: ${a.name}\n`);
        yield* a.chunks();
      } else yield Buffer.from(`# kubesim: ${a.name}\n${a.text}`);
    }
  }
}
