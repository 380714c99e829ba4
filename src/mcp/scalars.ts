import { z } from 'zod';

/*
 * The validators of the SDL's custom scalars (schema/scalars.graphql) as the MCP tools take them:
 * src/generated/mcp-inputs.ts uses these for every DateTime and JSON argument.
 */

/** DateTime: an ISO-8601 time with a zone (an offset or Z); one without a zone is refused. */
export const DateTimeArg = z.iso
  .datetime({ offset: true, message: 'must be an ISO-8601 time with a zone, e.g. 2026-05-14T02:08:31Z' })
  .describe('ISO-8601 time with a zone, e.g. 2026-05-14T02:08:31Z.');

/** JSON: any JSON value; a tool narrows it where the operation takes an object of a known shape. */
export const JsonArg = z.json();
