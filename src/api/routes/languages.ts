import { z } from 'zod';
import { offeredLanguages } from '../../domain/languages/offer';
import { LANGUAGE_IDS } from '../../judging/program/languages';
import { defineRoute } from '../route';
import { envelope } from '../schemas/common';

const languageSchema = z
  .object({
    id: z.enum(LANGUAGE_IDS),
    name: z.string(),
    /** The runtime's own version, e.g. `3.11.2`. */
    version: z.string(),
    /** With the dot: `.py`. */
    extensions: z.array(z.string()),
    /** A compile step runs (TypeScript's esbuild transform counts). */
    compiled: z.boolean(),
  })
  .openapi('Language');

export const languageRoutes = [
  defineRoute({
    operationId: 'listLanguages',
    method: 'get',
    path: '/api/v1/languages',
    summary:
      "Languages of the program judge that at least one live worker offers (its start-up probe compiled and ran a program in the language inside the sandbox), with the runtime's version",
    tags: ['challenges'],
    auth: 'public',
    rateLimit: 'reads',
    responses: { 200: { description: 'the offered languages', schema: envelope(z.array(languageSchema)) } },
    async handler({ deps }) {
      return { data: await offeredLanguages(deps.db) };
    },
  }),
];
