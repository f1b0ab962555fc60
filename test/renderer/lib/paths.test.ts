import { describe, expect, it } from 'vitest';
import { relativeToRoot, withSeparator } from '../../../renderer/src/lib/paths.js';

describe('relativeToRoot: no roots', () => {
  it('with no roots an absolute path is shown whole, with no root', () => {
    expect(relativeToRoot('/home/me/project/a.txt', [])).toEqual({ root: null, relative: '/home/me/project/a.txt' });
  });

  it('with no roots a relative path is shown whole, as given', () => {
    expect(relativeToRoot('./src/a.ts', [])).toEqual({ root: null, relative: './src/a.ts' });
  });
});

describe('relativeToRoot: absolute POSIX paths', () => {
  const roots = ['/home/me/project'];

  it('a path inside the root is split into the root and the part below it', () => {
    expect(relativeToRoot('/home/me/project/src/a.ts', roots)).toEqual({ root: '/home/me/project', relative: 'src/a.ts' });
  });

  it("the root itself is '.'", () => {
    expect(relativeToRoot('/home/me/project', roots)).toEqual({ root: '/home/me/project', relative: '.' });
  });

  it("the root itself with a trailing slash is '.'", () => {
    expect(relativeToRoot('/home/me/project/', roots)).toEqual({ root: '/home/me/project', relative: '.' });
  });

  it('a root given with a trailing slash matches, and is reported without it', () => {
    expect(relativeToRoot('/home/me/project/a', ['/home/me/project/'])).toEqual({ root: '/home/me/project', relative: 'a' });
    expect(relativeToRoot('/home/me/project', ['/home/me/project/'])).toEqual({ root: '/home/me/project', relative: '.' });
  });

  it('a folder path with a trailing slash loses the slash', () => {
    expect(relativeToRoot('/home/me/project/src/', roots)).toEqual({ root: '/home/me/project', relative: 'src' });
  });

  it('a sibling folder with the root as prefix (/root-old for /root) is NOT inside', () => {
    expect(relativeToRoot('/root-old/a', ['/root'])).toEqual({ root: null, relative: '/root-old/a' });
    expect(relativeToRoot('/home/me/project-old/x', roots)).toEqual({ root: null, relative: '/home/me/project-old/x' });
  });

  it('a longer name with the root as prefix and no separator (/rootx) is NOT inside', () => {
    expect(relativeToRoot('/rootx', ['/root'])).toEqual({ root: null, relative: '/rootx' });
  });

  it('a path outside every root is shown whole, with no root', () => {
    expect(relativeToRoot('/etc/passwd', roots)).toEqual({ root: null, relative: '/etc/passwd' });
  });

  it('a parent of the root is not inside the root', () => {
    expect(relativeToRoot('/home/me', roots)).toEqual({ root: null, relative: '/home/me' });
  });

  it('POSIX paths compare case-sensitively: /ROOT/a is not in /root', () => {
    expect(relativeToRoot('/ROOT/a', ['/root'])).toEqual({ root: null, relative: '/ROOT/a' });
  });

  it('the deepest matching root wins, whatever the order of the roots', () => {
    const expected = { root: '/home/me/project/sub', relative: 'a.txt' };
    expect(relativeToRoot('/home/me/project/sub/a.txt', ['/home/me/project', '/home/me/project/sub'])).toEqual(expected);
    expect(relativeToRoot('/home/me/project/sub/a.txt', ['/home/me/project/sub', '/home/me/project'])).toEqual(expected);
  });

  it('a nested root equal to the path wins over the root around it', () => {
    expect(relativeToRoot('/home/me/project/sub', ['/home/me/project', '/home/me/project/sub'])).toEqual({ root: '/home/me/project/sub', relative: '.' });
  });

  it('a path in the outer root but beside the nested one belongs to the outer root', () => {
    expect(relativeToRoot('/home/me/project/other/a', ['/home/me/project/sub', '/home/me/project'])).toEqual({ root: '/home/me/project', relative: 'other/a' });
  });

  it('a nested root that is only a name-prefix (sub-old vs sub) does not win', () => {
    expect(relativeToRoot('/home/me/project/sub-old/a', ['/home/me/project', '/home/me/project/sub'])).toEqual({ root: '/home/me/project', relative: 'sub-old/a' });
  });

  it('/ as a root holds every absolute path', () => {
    expect(relativeToRoot('/etc/hosts', ['/'])).toEqual({ root: '/', relative: 'etc/hosts' });
    expect(relativeToRoot('/', ['/'])).toEqual({ root: '/', relative: '.' });
  });

  it('any other root is deeper than /', () => {
    expect(relativeToRoot('/home/me/project/a', ['/', '/home/me/project'])).toEqual({ root: '/home/me/project', relative: 'a' });
  });

  it('names with spaces and unicode are kept as they are', () => {
    expect(relativeToRoot('/home/me/my project/日本/ü.txt', ['/home/me/my project'])).toEqual({ root: '/home/me/my project', relative: '日本/ü.txt' });
  });
});

describe('relativeToRoot: relative paths', () => {
  const roots = ['/first/', '/second'];

  it('a relative path starts at the first root', () => {
    expect(relativeToRoot('src/a.ts', roots)).toEqual({ root: '/first', relative: 'src/a.ts' });
  });

  it('a leading ./ is dropped', () => {
    expect(relativeToRoot('./src/a.ts', roots)).toEqual({ root: '/first', relative: 'src/a.ts' });
  });

  it("'.', './' and '' are the first root itself", () => {
    for (const path of ['.', './', '']) expect(relativeToRoot(path, roots), JSON.stringify(path)).toEqual({ root: '/first', relative: '.' });
  });

  it('../ is kept: the path is shown as given, not resolved', () => {
    expect(relativeToRoot('../x', roots)).toEqual({ root: '/first', relative: '../x' });
  });

  it('a Windows .\\ prefix is dropped too', () => {
    expect(relativeToRoot('.\\src\\a.ts', ['C:\\proj\\'])).toEqual({ root: 'C:\\proj', relative: 'src\\a.ts' });
  });
});

describe('relativeToRoot: Windows paths', () => {
  it('a path inside a drive-letter root, with backslashes', () => {
    expect(relativeToRoot('C:\\Users\\me\\proj\\a.txt', ['C:\\Users\\me\\proj'])).toEqual({ root: 'C:\\Users\\me\\proj', relative: 'a.txt' });
  });

  it('drive letters and names compare case-insensitively; the root is reported as configured', () => {
    expect(relativeToRoot('c:\\USERS\\Me\\Proj\\a.txt', ['C:\\Users\\me\\proj'])).toEqual({ root: 'C:\\Users\\me\\proj', relative: 'a.txt' });
  });

  it("the root itself, with or without a trailing backslash, is '.'", () => {
    expect(relativeToRoot('C:\\Users\\me', ['C:\\Users\\me\\'])).toEqual({ root: 'C:\\Users\\me', relative: '.' });
    expect(relativeToRoot('C:\\Users\\me\\', ['C:\\Users\\me'])).toEqual({ root: 'C:\\Users\\me', relative: '.' });
  });

  it('a sibling with the root as prefix is NOT inside', () => {
    expect(relativeToRoot('C:\\proj-old\\a', ['C:\\proj'])).toEqual({ root: null, relative: 'C:\\proj-old\\a' });
  });

  it('a drive root C:\\ keeps its backslash and holds the whole drive', () => {
    expect(relativeToRoot('C:\\x\\y', ['C:\\'])).toEqual({ root: 'C:\\', relative: 'x\\y' });
    expect(relativeToRoot('C:\\', ['C:\\'])).toEqual({ root: 'C:\\', relative: '.' });
  });

  it('another drive is not inside', () => {
    expect(relativeToRoot('D:\\proj\\a', ['C:\\proj'])).toEqual({ root: null, relative: 'D:\\proj\\a' });
  });

  it('a UNC share root', () => {
    expect(relativeToRoot('\\\\server\\share\\dir\\f', ['\\\\server\\share'])).toEqual({ root: '\\\\server\\share', relative: 'dir\\f' });
  });
});

describe('withSeparator', () => {
  it('adds a slash after a POSIX root', () => {
    expect(withSeparator('/home/me/project')).toBe('/home/me/project/');
  });

  it('leaves a root that already ends in its separator alone', () => {
    expect(withSeparator('/home/me/project/')).toBe('/home/me/project/');
    expect(withSeparator('/')).toBe('/');
    expect(withSeparator('C:\\')).toBe('C:\\');
  });

  it('adds a backslash after a Windows root', () => {
    expect(withSeparator('C:\\Users\\me')).toBe('C:\\Users\\me\\');
    expect(withSeparator('\\\\server\\share')).toBe('\\\\server\\share\\');
  });

  it('root shown with its separator, then the relative part, reads as the original path', () => {
    const cases: [string, string[]][] = [
      ['/home/me/project/src/a.ts', ['/home/me/project']],
      ['/home/me/project/src/a.ts', ['/home/me/project/']],
      ['/etc/hosts', ['/']],
      ['C:\\Users\\me\\a.txt', ['C:\\Users\\me']],
      ['C:\\a.txt', ['C:\\']],
      ['/a/b/c/d', ['/a', '/a/b/c', '/a/b']],
    ];
    for (const [path, roots] of cases) {
      const { root, relative } = relativeToRoot(path, roots);
      expect(root, path).not.toBeNull();
      expect(withSeparator(root!) + relative).toBe(path);
    }
  });
});
