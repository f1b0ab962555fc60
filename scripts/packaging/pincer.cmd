@echo off
rem The installed app's `pincer` command (Windows), in the app's resources folder. It runs the CLI on the app's
rem own runtime: Pincer.exe with ELECTRON_RUN_AS_NODE=1 is a Node, so `pincer mcp` and the rest need no separate
rem Node install. The database addon must be the Electron build that ships beside it.
setlocal
set "ELECTRON_RUN_AS_NODE=1"
set "PINCER_SQLITE_BINDING=%~dp0native\better_sqlite3.node"
"%~dp0..\Pincer.exe" "%~dp0app.asar\bin\pincer.js" %*
exit /b %ERRORLEVEL%
