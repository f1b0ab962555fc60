#!/bin/bash
# The deb's after-install script: electron-builder's own steps (the chrome-sandbox mode, the desktop and MIME
# databases, the AppArmor profile), except the /usr/bin link. electron-builder would link /usr/bin to the app
# executable; here /usr/bin/pincer is the `pincer` command (resources/pincer, the CLI on the app's own runtime),
# which MCP clients and scripts run. The desktop app starts from its menu entry.
# electron-builder fills in the dollar-brace names below when it builds the package.

cli='/opt/${sanitizedProductName}/resources/pincer'
if type update-alternatives >/dev/null 2>&1; then
    # Remove a previous link that does not go through update-alternatives
    if [ -L /usr/bin/pincer -a -e /usr/bin/pincer -a "`readlink /usr/bin/pincer`" != /etc/alternatives/pincer ]; then
        rm -f /usr/bin/pincer
    fi
    update-alternatives --install /usr/bin/pincer pincer "$cli" 100 || ln -sf "$cli" /usr/bin/pincer
else
    ln -sf "$cli" /usr/bin/pincer
fi

# Check if user namespaces are supported by the kernel and working with a quick test:
if ! { [[ -L /proc/self/ns/user ]] && unshare --user true; }; then
    # Use SUID chrome-sandbox only on systems without user namespaces:
    chmod 4755 '/opt/${sanitizedProductName}/chrome-sandbox' || true
else
    chmod 0755 '/opt/${sanitizedProductName}/chrome-sandbox' || true
fi

if hash update-mime-database 2>/dev/null; then
    update-mime-database /usr/share/mime || true
fi

if hash update-desktop-database 2>/dev/null; then
    update-desktop-database /usr/share/applications || true
fi

# The AppArmor profile (Ubuntu 24 and later), installed only where this AppArmor understands it.
if apparmor_status --enabled > /dev/null 2>&1; then
  APPARMOR_PROFILE_SOURCE='/opt/${sanitizedProductName}/resources/apparmor-profile'
  APPARMOR_PROFILE_TARGET='/etc/apparmor.d/${executable}'
  if apparmor_parser --skip-kernel-load --debug "$APPARMOR_PROFILE_SOURCE" > /dev/null 2>&1; then
    cp -f "$APPARMOR_PROFILE_SOURCE" "$APPARMOR_PROFILE_TARGET"
    # Not in a chroot (an image being prepared): loading a profile there means nothing.
    if ! { [ -x '/usr/bin/ischroot' ] && /usr/bin/ischroot; } && hash apparmor_parser 2>/dev/null; then
      apparmor_parser --replace --write-cache --skip-read-cache "$APPARMOR_PROFILE_TARGET"
    fi
  else
    echo "Skipping the installation of the AppArmor profile as this version of AppArmor does not seem to support the bundled profile"
  fi
fi
