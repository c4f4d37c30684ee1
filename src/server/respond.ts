/**
 * Writing answers: JSON bodies and metav1.Status failures with the HTTP code of the error
 * (404 NotFound, 409 Conflict/AlreadyExists, 410 Expired, 422 Invalid with field causes,
 * 429 TooManyRequests with a Retry-After header, …), as kube-apiserver's responsewriters do
 * (upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/status.go).
 */
import type { ServerResponse } from 'node:http';
import { ApiError, internalError } from '../api/errors.js';
import { encodeProtobufObject, PROTOBUF } from './protobuf.js';

export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  contentType = 'application/json',
): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** Send an object as JSON, or as protobuf when that is the representation negotiated. */
export function sendObject(
  res: ServerResponse,
  code: number,
  body: unknown,
  contentType: string,
  protobuf: boolean,
): void {
  if (!protobuf) {
    sendJson(res, code, body, contentType);
    return;
  }
  const bytes = encodeProtobufObject(body);
  res.writeHead(code, { 'Content-Type': PROTOBUF, 'Content-Length': bytes.length });
  res.end(bytes);
}

/**
 * `Warning` headers (RFC 7234 code 299, agent "-"), as kube-apiserver's warning recorder writes
 * them (upstream: staging/src/k8s.io/apiserver/pkg/endpoints/filters/warning.go); kubectl prints
 * each as `Warning: …`.
 */
export function addWarnings(res: ServerResponse, warnings: readonly string[]): void {
  if (warnings.length === 0 || res.headersSent) return;
  const prev = res.getHeader('Warning');
  const list = Array.isArray(prev) ? prev : prev === undefined ? [] : [String(prev)];
  res.setHeader('Warning', [...list, ...warnings.map((w) => `299 - ${JSON.stringify(w)}`)]);
}

/** An error as the metav1.Status clients decode; anything that is not an ApiError becomes a 500. */
export function sendError(res: ServerResponse, err: unknown): void {
  const e = err instanceof ApiError ? err : internalError(err);
  if (res.headersSent) {
    res.end();
    return;
  }
  const retry = e.details?.retryAfterSeconds;
  if (retry !== undefined) res.setHeader('Retry-After', String(retry));
  sendJson(res, e.code, e.status());
}

/** metav1.Status for a successful delete of an object that is gone at once. */
export function successStatus(details: {
  name?: string;
  group?: string;
  kind: string;
  uid?: string;
}): object {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}

/** 404 for a path the server does not serve (upstream's NotFound handler words it so). */
export function pathNotFound(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function methodNotAllowed(verb: string, what: string): ApiError {
  return new ApiError(
    405,
    'MethodNotAllowed',
    `the server does not allow this method on the requested resource (${verb} ${what})`,
    {},
  );
}
