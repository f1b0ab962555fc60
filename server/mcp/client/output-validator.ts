import { Ajv } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { jsonSchemaValidator, JsonSchemaType } from '@modelcontextprotocol/sdk/validation/types.js';
import { linearRegExp, useLinearChecks } from '../../tools/validator.js';

// ajv-formats is CommonJS with `exports.default`; under NodeNext its function arrives as `.default`.
const addFormats = ajvFormats.default as unknown as (ajv: Ajv) => Ajv;

/**
 * What the SDK's client checks an imported tool's `structuredContent` with, against the `outputSchema` the server
 * published: the SDK's own checker (same dialect and options) with the gateway's linear-time patterns and formats.
 * Security: with the SDK's default, a server's `pattern: "^(a|aa)+$"` and a crafted result froze the event loop.
 * An output schema that cannot be compiled (a lookahead) fails the tool's results with the reason instead of the
 * whole tool listing.
 */
export function linearOutputValidator(): jsonSchemaValidator {
  // One per connection (a server's `$id`s must not resolve to another's schemas), built when first needed.
  let sdk: AjvJsonSchemaValidator | undefined;
  const build = () => {
    const ajv = new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true, code: { regExp: linearRegExp } });
    addFormats(ajv);
    useLinearChecks(ajv);
    return new AjvJsonSchemaValidator(ajv);
  };
  return {
    getValidator<T>(schema: JsonSchemaType) {
      try {
        sdk ??= build();
        return sdk.getValidator<T>(schema);
      } catch (error) {
        const errorMessage = `its outputSchema cannot be checked: ${(error as Error).message}`;
        return () => ({ valid: false as const, data: undefined, errorMessage });
      }
    },
  };
}
