// The Google Reader API as one encapsulated Fastify plugin, served under /reader/api/0 and
// /api/greader.php/reader/api/0 (several clients only enable writes when they see the latter).
// Body parsers here apply to these routes only: forms keep repeated keys and tolerate values
// that are not percent-encoded; any other body (OPML as text/xml, none at all) arrives as text.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { App } from '../runtime/app.ts';
import { FormBody, looksLikeForm } from '../http/params.ts';
import { textError, type ApiErrorShape } from '../http/error-shape.ts';
import { sendError } from './http-context.ts';
import { registerReaderRoutes } from './routes.ts';

export const READER_API_PREFIXES = ['/reader/api/0', '/api/greader.php/reader/api/0'];

/** Errors under its prefixes, and under /reader and /api/greader.php beside them: `Error=<what to fix>`. */
export const readerApiErrors: ApiErrorShape = {
  prefixes: [...READER_API_PREFIXES, '/reader', '/api/greader.php'],
  shape: (_status, message) => textError(`Error=${message}`),
  endpointHint: `the Google Reader API is at ${READER_API_PREFIXES.join(' and ')}`,
};

/**
 * The largest form a Reader call takes. The biggest real one, edit-tag or items/contents with the
 * 1,000 ids allowed in their long form, is about 60 KB; a form is scanned whole before its values
 * are checked, and a 15 MiB one (1.5 million `i=`, under the server's 16 MiB body limit) held the
 * thread 0.6 s (test/freeze-attacks.ts). OPML files, which are not forms, have their own limit.
 */
export const READER_FORM_MAX_BYTES = 1024 * 1024;

const FORM = 'application/x-www-form-urlencoded';

const formTooLarge = (bytes: number | undefined) =>
  Object.assign(
    new Error(
      `the form is ${bytes === undefined ? `over ${READER_FORM_MAX_BYTES}` : bytes} bytes; a Reader call takes at most ${READER_FORM_MAX_BYTES} (send at most 1,000 item ids per call)`,
    ),
    { statusCode: 413 },
  );

function installBodyParsers(f: FastifyInstance): void {
  const form = FORM;
  if (f.hasContentTypeParser(form)) f.removeContentTypeParser(form);
  // bodyLimit: a form announced larger is refused by its Content-Length before a byte of it is
  // read or decoded (a 15 MiB one, read whole into a string first, still held the thread over
  // 200 ms twice at load 18; test/freeze-guard.test.ts). A form without a length is cut at the limit.
  f.addContentTypeParser(form, { parseAs: 'string', bodyLimit: READER_FORM_MAX_BYTES }, (_req, body, done) => {
    const text = body as string;
    if (text.length > READER_FORM_MAX_BYTES) done(formTooLarge(Buffer.byteLength(text)));
    else done(null, new FormBody(text));
  });
  for (const t of ['application/json', 'text/plain']) if (f.hasContentTypeParser(t)) f.removeContentTypeParser(t);
  // Everything else (text/xml OPML, application/json, no type): raw text; a body that looks like a
  // form is read as one (src/http/params.ts), since some clients post forms without the header.
  f.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    if (text.length > READER_FORM_MAX_BYTES && looksLikeForm(text)) done(formTooLarge(Buffer.byteLength(text)));
    else done(null, text);
  });
}

export const readerApiPlugin: FastifyPluginAsync<{ app: App }> = async (server, { app }) => {
  for (const prefix of READER_API_PREFIXES) {
    await server.register(
      async (f) => {
        installBodyParsers(f);
        f.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
          const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
          if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' && `${req.headers['content-type']}`.startsWith(FORM))
            return sendError(reply, 413, formTooLarge(Number(req.headers['content-length']) || undefined).message);
          if (status >= 500) app.log.error({ err }, 'reader API request failed');
          return sendError(reply, status, status >= 500 ? 'internal error; try again later' : err.message);
        });
        f.setNotFoundHandler((req, reply) =>
          sendError(
            reply,
            404,
            `unknown endpoint ${req.url.split('?')[0]}: see the endpoint list in the Reader API documentation`,
          ),
        );
        registerReaderRoutes(f, app);
      },
      { prefix },
    );
  }
};
