#!/bin/bash
# The deb's after-remove script: electron-builder's own steps, for the /usr/bin/pincer link that
# deb-after-install.sh made to the `pincer` command (not to the app executable).
# electron-builder fills in the dollar-brace names below when it builds the package.

if type update-alternatives >/dev/null 2>&1; then
    update-alternatives --remove pincer '/opt/${sanitizedProductName}/resources/pincer'
else
    rm -f /usr/bin/pincer
fi

APPARMOR_PROFILE_DEST='/etc/apparmor.d/${executable}'

# Unload the AppArmor profile before deleting it, so it is not left enforced until the next reboot (not in a chroot).
if [ -f "$APPARMOR_PROFILE_DEST" ]; then
  if apparmor_status --enabled > /dev/null 2>&1; then
    if ! { [ -x '/usr/bin/ischroot' ] && /usr/bin/ischroot; } && hash apparmor_parser 2>/dev/null; then
      apparmor_parser --remove "$APPARMOR_PROFILE_DEST" || true
    fi
  fi
  rm -f "$APPARMOR_PROFILE_DEST"
fi
