/**
 * The self-review APIs kubectl's `auth can-i` posts to, answered as kube-apiserver answers them
 * with the AlwaysAllow authorizer, which is what kubesim serve is: every request is allowed.
 *
 *  - `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews` → `status.allowed: true`
 *    (`kubectl auth can-i VERB RESOURCE` prints "yes");
 *  - `POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews` → every verb on every resource
 *    and non-resource URL (`kubectl auth can-i --list`).
 *
 * The request body is not read: kubectl sends it as protobuf, which the server does not decode,
 * and the answer does not depend on it. (upstream: pkg/registry/authorization/
 * selfsubjectaccessreview/rest.go and selfsubjectrulesreview/rest.go; the AlwaysAllow authorizer
 * in staging/src/k8s.io/apiserver/pkg/authorization/authorizerfactory/builtin.go)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './respond.js';

const BASE = '/apis/authorization.k8s.io/v1/';

export async function authRoute(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  if (req.method !== 'POST' || !url.pathname.startsWith(BASE)) return false;
  const resource = url.pathname.slice(BASE.length).replace(/\/+$/, '');
  const head = { apiVersion: 'authorization.k8s.io/v1', metadata: { creationTimestamp: null } };
  req.resume(); // the body is not needed
  if (resource === 'selfsubjectaccessreviews') {
    sendJson(res, 201, { ...head, kind: 'SelfSubjectAccessReview', spec: {}, status: { allowed: true } });
    return true;
  }
  if (resource === 'selfsubjectrulesreviews') {
    sendJson(res, 201, {
      ...head,
      kind: 'SelfSubjectRulesReview',
      spec: {},
      status: {
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        incomplete: false,
      },
    });
    return true;
  }
  return false;
}
