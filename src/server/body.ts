/**
 * Request bodies by Content-Type, as kube-apiserver's negotiated serializers accept them
 * (upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/negotiation):
 * `application/json` (the default when none is sent), `application/yaml`, and
 * `application/vnd.kubernetes.protobuf` (the `k8s\0` envelope, protobuf.ts).
 */
import { parse as parseYaml } from 'yaml';
import { ApiError, badRequest } from '../api/errors.js';
import { decodeProtobufObject, PROTOBUF } from './protobuf.js';

// biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON
type Obj = any;

export function unsupportedMediaType(type: string): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType' as never,
    `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, ${PROTOBUF}`,
    { causes: [{ reason: 'UnsupportedMediaType' as never, message: type }] } as never,
  );
}

export function mediaType(header: string | undefined): string {
  return (header ?? 'application/json').split(';')[0]!.trim().toLowerCase();
}

export async function decodeBody(contentType: string | undefined, raw: () => Promise<Buffer>): Promise<Obj> {
  const type = mediaType(contentType);
  if (type !== 'application/json' && type !== '*/*' && type !== 'application/yaml' && type !== PROTOBUF)
    throw unsupportedMediaType(type);
  const b = await raw();
  if (b.length === 0) throw badRequest('the request body is empty');
  if (type === PROTOBUF) return decodeProtobufObject(b);
  const text = b.toString('utf8');
  try {
    return type === 'application/yaml' ? parseYaml(text) : JSON.parse(text);
  } catch (e) {
    throw badRequest(
      `the request body is not valid ${type === 'application/yaml' ? 'YAML' : 'JSON'}: ${(e as Error).message}`,
    );
  }
}
