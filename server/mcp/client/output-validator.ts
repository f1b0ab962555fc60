import type { jsonSchemaValidator, JsonSchemaType } from '@modelcontextprotocol/sdk/validation/types.js';
import { SchemaCompilers } from '../../tools/schema-dialects.js';

/**
 * What the SDK's client checks an imported tool's `structuredContent` with, against the `outputSchema` the server
 * published: the gateway's own compilers (the dialect its `$schema` names, linear-time patterns and formats, no
 * reference outside the schema), with the SDK checker's leniency (the schema itself is not judged, results are not
 * changed by defaults). Security: with the SDK's default, a server's `pattern: "^(a|aa)+$"` and a crafted result
 * froze the event loop. An output schema that cannot be compiled (a lookahead, an unknown dialect) fails the tool's
 * results with the reason instead of the whole tool listing.
 */
export function linearOutputValidator(): jsonSchemaValidator {
  // One per connection, built when first needed.
  let compilers: SchemaCompilers | undefined;
  return {
    getValidator<T>(schema: JsonSchemaType) {
      try {
        compilers ??= new SchemaCompilers({ validateFormats: true, validateSchema: false, allErrors: true });
        const validate = compilers.compile(schema as Record<string, unknown>);
        return (input: unknown) =>
          validate(input)
            ? { valid: true as const, data: input as T, errorMessage: undefined }
            : { valid: false as const, data: undefined, errorMessage: errorsText(validate.errors) };
      } catch (error) {
        const errorMessage = `its outputSchema cannot be checked: ${(error as Error).message}`;
        return () => ({ valid: false as const, data: undefined, errorMessage });
      }
    },
  };
}

/** Ajv's `errorsText` wording (what the SDK's checker reported), without an instance to call it on. */
function errorsText(errors: { instancePath: string; message?: string }[] | null | undefined): string {
  if (!errors?.length) return 'No errors';
  return errors.map((e) => `data${e.instancePath} ${e.message ?? 'is invalid'}`).join(', ');
}
