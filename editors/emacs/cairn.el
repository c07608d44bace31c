;;; cairn.el --- The cairn coding agent in Emacs  -*- lexical-binding: t; -*-

;; Copyright (C) 2025 The cairn authors

;; Author: The cairn authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: tools, processes, convenience
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; cairn is an autonomous coding agent: it plans, edits files, runs the
;; project's commands and checks, and reports what it cost.  This package
;; is its home in Emacs.  It starts `cairn acp' (cairn's Agent Client
;; Protocol server) and talks to it over its standard input and output.
;;
;; M-x cairn opens the chat of the current project: type below the
;; prompt, C-c C-c sends, C-c C-k interrupts.  The answer streams in,
;; each tool call shows by its title with its diff, the TODO list stays
;; above the prompt, and every turn ends with what it cost.  Approvals
;; and questions are asked in the minibuffer, with the terminal's
;; choices.  `cairn-run' hands cairn a task to carry out whole (plan,
;; edits, checks, review); `cairn-do-region' asks about the region;
;; `cairn-resume' continues a stored session; `cairn-undo' takes back the
;; last change.
;;
;; cairn acts in this Emacs as far as you let it: it reads your unsaved
;; buffers, its edits go through the buffers that visit the files, it can
;; show you a file at a line, and, unless `cairn-offer-eval' is nil, it
;; may ask to evaluate Emacs Lisp here (its `emacs_eval' tool), each time
;; showing you the code first.
;;
;; What a project's own files ask for beyond your settings (its
;; .cairn/config.yaml, its hooks, its commands' allowed tools...) applies
;; only in a folder you trust: one in `cairn-trust-workspace', or, on
;; Emacs 30, in `trusted-content'.
;;
;; docs/editors.md in cairn's repository says more.

;;; Code:

(require 'cl-lib)
(require 'diff-mode)
(require 'json)
(require 'project)
(require 'subr-x)

(declare-function auth-source-search "auth-source" (&rest spec))
(declare-function json-serialize "json.c" (object &rest args))
(declare-function json-parse-string "json.c" (string &rest args))

(defconst cairn-version "0.1.0"
  "The version of cairn.el.")

;;;; Settings

(defgroup cairn nil
  "The cairn coding agent."
  :group 'tools
  :prefix "cairn-")

(defcustom cairn-program "cairn"
  "The cairn program: a name found on variable `exec-path', or the path of one."
  :type 'string)

(defcustom cairn-program-args nil
  "Arguments given after `cairn acp'.
For example (\"--model\" \"anthropic/claude-sonnet-4-5\" \"--approval\" \"auto-edit\")."
  :type '(repeat string))

(defcustom cairn-api-key nil
  "The API key cairn gives its model's provider, when cairn has none.
A key in the environment Emacs starts cairn with, or one stored with
`cairn auth login', comes first.  Without one, cairn says which
provider it needs a key for, and this is asked:

- nil: the key is looked up in auth-source (`auth-sources', such as
  ~/.authinfo.gpg) by the host of the provider's API and the login
  \"apikey\", as gptel looks it up:
    machine api.anthropic.com login apikey password sk-ant-...
- a string: the key of the provider of cairn's model;
- a function: called with the provider's name (\"anthropic\",
  \"openai\"...), or with nothing if it takes no argument, it returns
  the key, or nil;
- an alist of (PROVIDER . KEY), KEY a string or a function of no
  argument: for more than one provider.

When this gives no key, auth-source is asked as for nil.  The key
reaches `cairn acp' in its environment: never on its command line,
and never in the chat's log."
  :type '(choice (const :tag "Look it up in auth-source" nil)
                 (string :tag "The key")
                 (function :tag "A function of the provider's name")
                 (alist :tag "A key per provider" :key-type string
                        :value-type (choice string function))))
;; A repository must not choose where your key goes through its .dir-locals.el.
(put 'cairn-api-key 'risky-local-variable t)

(defcustom cairn-offer-eval t
  "Whether cairn's model may ask to evaluate Emacs Lisp in this Emacs.
When non-nil, cairn offers its model the `emacs_eval' tool, and each
evaluation is shown to you and asked about first (unless a rule of
cairn's configuration allows the tool).  When nil, the tool is not
offered at all."
  :type 'boolean)

(defcustom cairn-trust-workspace nil
  "The project folders you trust with what their own files ask for.
A project's .cairn/config.yaml, .mcp.json, hooks, agent files, custom
commands and skills came with the repository, not from you: until you
trust its folder, cairn lets them only narrow what your own settings
allow.  nil trusts no folder of its own accord; t trusts every folder
you open cairn in; a list of folders trusts those and every folder
below them.  Folders Emacs itself trusts, in `trusted-content' (Emacs
30 and later), are trusted as well.  A project's .dir-locals.el cannot
set this."
  :type '(choice (const :tag "Only folders in `trusted-content'" nil)
                 (const :tag "Every folder" t)
                 (repeat :tag "These folders, and those below them" directory)))
;; A repository must not trust itself through its .dir-locals.el.
(put 'cairn-trust-workspace 'risky-local-variable t)

(defcustom cairn-approval-guard 0.5
  "Seconds keys are ignored for when an approval question appears.
Keys typed just before it were meant for something else."
  :type 'number)

(defcustom cairn-request-timeout 60
  "Seconds to wait for cairn to start a session or answer a request."
  :type 'number)

(defcustom cairn-output-lines 6
  "Lines of a tool call's output shown in the chat."
  :type 'integer)

(defcustom cairn-diff-lines 40
  "Lines of a tool call's diff shown in the chat."
  :type 'integer)

(defcustom cairn-render-markdown t
  "How the chat shows the Markdown of cairn's answers.
t: drawn, its markup hidden, with markdown-mode's faces when
markdown-mode is installed and with cairn.el's own otherwise;
`builtin': always with cairn.el's own; nil: as written."
  :type '(choice (const :tag "Drawn, by markdown-mode when installed" t)
                 (const :tag "Drawn by cairn.el" builtin)
                 (const :tag "As written" nil)))

(defcustom cairn-turn-end-hook nil
  "Hook run in the chat buffer when a turn ends."
  :type 'hook)

(defface cairn-user '((t :inherit font-lock-keyword-face :weight bold))
  "Face of your messages in the chat.")

(defface cairn-thought '((t :inherit shadow :slant italic))
  "Face of the model's thinking and cairn's notes.")

(defface cairn-tool '((t :inherit font-lock-function-name-face))
  "Face of a tool call's title.")

(defface cairn-pending '((t :inherit warning))
  "Face of a tool call that has not finished.")

(defface cairn-done '((t :inherit success))
  "Face of a tool call that succeeded.")

(defface cairn-failed '((t :inherit error))
  "Face of a tool call that failed or was refused.")

(defface cairn-added '((t :inherit diff-added))
  "Face of an added line in a diff.")

(defface cairn-removed '((t :inherit diff-removed))
  "Face of a removed line in a diff.")

(defface cairn-footer '((t :inherit shadow))
  "Face of the line that ends a turn.")

(defface cairn-prompt '((t :inherit minibuffer-prompt))
  "Face of the chat's prompt.")

(defface cairn-code '((t :inherit (fixed-pitch font-lock-constant-face)))
  "Face of code in cairn's answers, inline and in blocks.")

(defface cairn-heading '((t :inherit bold :height 1.1))
  "Face of a heading in cairn's answers.")

;;;; JSON

(defun cairn--native-json-p ()
  "Whether this Emacs has its own JSON parser."
  (and (fboundp 'json-available-p) (json-available-p)))

(defun cairn--json-encode (object)
  "OBJECT as JSON text: alists are objects, vectors arrays, nil null.
`:json-false' is false and a hash table is an (empty) object."
  (if (cairn--native-json-p)
      (json-serialize object :null-object nil :false-object :json-false)
    (json-encode object)))

(defun cairn--json-decode (text)
  "TEXT read as JSON: objects as alists, arrays as lists, null and false as nil."
  (if (cairn--native-json-p)
      (json-parse-string text :object-type 'alist :array-type 'list
                         :null-object nil :false-object nil)
    (let ((json-object-type 'alist) (json-array-type 'list) (json-key-type 'symbol)
          (json-false nil) (json-null nil))
      (json-read-from-string text))))

(defun cairn--empty ()
  "An empty JSON object."
  (make-hash-table))

;;;; The chat buffer's state

(cl-defstruct (cairn--call (:constructor cairn--call-create))
  "A tool call shown in the chat: where it is, and what it shows."
  start end title kind status content locations expanded)

(defvar-local cairn--root nil "The project folder of the chat.")
(defvar-local cairn--process nil "The `cairn acp' process of the chat.")
(defvar-local cairn--environment nil
  "What the chat's cairn gets in its environment besides Emacs's: (\"VARIABLE=KEY\").")
(defvar-local cairn--session nil "The id of the chat's ACP session.")
(defvar-local cairn--next-id 0 "The id of the next request to cairn.")
(defvar-local cairn--callbacks nil "Functions waiting for cairn's answers, by request id.")
(defvar-local cairn--partial "" "The start of a line from cairn not yet whole.")
(defvar-local cairn--busy nil "Non-nil while a message is being answered.")
(defvar-local cairn--output nil "Where the transcript goes on: a marker.")
(defvar-local cairn--input nil "Where what you type starts: a marker.")
(defvar-local cairn--last nil "What was written last: `message', `thought', `tool', `user' or nil.")
(defvar-local cairn--message-start nil "Where the answer being written began: a marker.")
(defvar-local cairn--calls nil "The tool calls shown, by their ids.")
(defvar-local cairn--plan nil "The TODO list: the entries of cairn's last plan.")
(defvar-local cairn--files nil "Files the session changed, relative to the project.")
(defvar-local cairn--turn-files nil "Files the turn under way changed.")
(defvar-local cairn--turn-edits nil
  "The changes the turn under way made in buffers: (BUFFER START END NEW OLD).
START and END are markers around the text NEW that replaced OLD.")
(defvar-local cairn--edits nil
  "What each turn changed in buffers, the last turn's first: what /undo takes back.")
(defvar-local cairn--undoing nil "Non-nil while /undo is under way; t once it undid something.")
(defvar-local cairn--cost nil "The session's dollars so far, when known.")
(defvar-local cairn--context nil "The context window's use: (USED . SIZE).")
(defvar-local cairn--mode nil "The session's approval mode.")
(defvar-local cairn--modes nil "The approval modes cairn offers: (ID . NAME).")
(defvar-local cairn--commands nil "The slash commands cairn offers.")
(defvar-local cairn--origin nil "The buffer you were in when you last called cairn.")
(defvar-local cairn--quiet nil "Non-nil while a session is reloaded and its history not shown again.")
(defvar-local cairn--history nil "Messages sent, newest first.")
(defvar-local cairn--history-index nil "Where \\[cairn-previous-input] is in the history.")

(defvar cairn--questions nil
  "Questions waiting to be asked in the minibuffer, oldest first.
Each is a plist: :buffer, :id, :kind (`permission' or `question'), :params.")

(defvar cairn--asking nil "Non-nil while a question of cairn's is in the minibuffer.")

;;;; Talking to cairn

(defun cairn--log (format-string &rest args)
  "Add FORMAT-STRING formatted with ARGS to the chat's log buffer."
  (let ((log (and cairn--process (process-get cairn--process 'cairn-log))))
    (when (buffer-live-p log)
      (with-current-buffer log
        (goto-char (point-max))
        (insert (apply #'format format-string args) "\n")))))

(defun cairn--send (message)
  "Send MESSAGE (an alist) to cairn as one JSON-RPC line."
  (if (process-live-p cairn--process)
      (process-send-string cairn--process
                           (concat (cairn--json-encode (cons '(jsonrpc . "2.0") message)) "\n"))
    (user-error "Cairn is not running here: M-x cairn starts it")))

(defun cairn--request (method params &optional callback)
  "Ask cairn METHOD with PARAMS; CALLBACK gets the result and the error."
  (let ((id (cl-incf cairn--next-id)))
    (when callback (puthash id callback cairn--callbacks))
    (cairn--send `((id . ,id) (method . ,method) (params . ,params)))
    id))

(defun cairn--request-sync (method params)
  "Ask cairn METHOD with PARAMS and wait for the result.
Signal an error that says why, when there is none."
  (let ((process cairn--process) done result failure)
    (cairn--request method params
                    (lambda (answer error) (setq done t result answer failure error)))
    (let ((deadline (+ (float-time) cairn-request-timeout)))
      (while (and (not done) (process-live-p process) (< (float-time) deadline))
        (accept-process-output process 0.05)))
    (cond (failure (error "Cairn: %s" (or (alist-get 'message failure) failure)))
          (done result)
          ((process-live-p process) (error "Cairn did not answer %s in time" method))
          (t (error "Cairn stopped: %s" (cairn--log-tail))))))

(defun cairn--notify (method params)
  "Tell cairn METHOD with PARAMS, wanting no answer."
  (cairn--send `((method . ,method) (params . ,params))))

(defun cairn--reply (id result)
  "Answer cairn's request ID with RESULT, if cairn is running."
  (when (process-live-p cairn--process)
    (cairn--send `((id . ,id) (result . ,result)))))

(defun cairn--reply-error (id code text)
  "Answer cairn's request ID with the error CODE and TEXT, if cairn is running."
  (when (process-live-p cairn--process)
    (cairn--send `((id . ,id) (error . ((code . ,code) (message . ,text)))))))

(defun cairn--filter (process text)
  "Read TEXT from PROCESS: one JSON-RPC message per line."
  (let ((buffer (process-get process 'cairn-buffer)))
    (when (buffer-live-p buffer)
      (with-current-buffer buffer
        (let* ((lines (split-string (concat cairn--partial text) "\n")))
          ;; Set before handling anything: a handler may wait for more output.
          (setq cairn--partial (car (last lines)))
          (dolist (line (butlast lines))
            (unless (string-blank-p line)
              (condition-case err
                  (cairn--receive (cairn--json-decode line))
                (error (cairn--log "cairn.el could not handle %s: %S" line err))))))))))

(defun cairn--receive (message)
  "Handle MESSAGE from cairn: a request, a notification or an answer."
  (let ((id (alist-get 'id message))
        (method (alist-get 'method message))
        (params (alist-get 'params message)))
    (cond ((and method id) (cairn--handle-request id method params))
          (method (cairn--handle-notification method params))
          (id (let ((callback (gethash id cairn--callbacks)))
                (remhash id cairn--callbacks)
                (when callback
                  (funcall callback (alist-get 'result message) (alist-get 'error message))))))))

(defun cairn--sentinel (process _event)
  "Say in the chat that PROCESS stopped, and why."
  (let ((buffer (process-get process 'cairn-buffer)))
    (unless (process-live-p process)
      (let* ((log (process-get process 'cairn-log))
             (stderr (and (buffer-live-p log) (get-buffer-process log)))
             (deadline (+ (float-time) 1)))
        ;; Its last words (why it stopped) may still be on their way.
        (while (and (process-live-p stderr) (< (float-time) deadline))
          (accept-process-output stderr 0.05))
        (when stderr (delete-process stderr)))
      (when (buffer-live-p buffer)
        (with-current-buffer buffer
          (when (eq process cairn--process)
            (setq cairn--busy nil)
            (cairn--cancel-questions)
            (clrhash cairn--callbacks)
            (cairn--fresh-line)
            (cairn--insert (cairn--face (format "cairn stopped (%s %d). %s\n"
                                                (if (eq (process-status process) 'signal)
                                                    "signal" "exit code")
                                                (process-exit-status process)
                                                (cairn--log-tail))
                                        'cairn-failed))
            (cairn--draw-footer)))))))

(defun cairn--log-tail ()
  "The last lines cairn wrote to its log."
  (let ((log (and cairn--process (process-get cairn--process 'cairn-log))))
    (if (buffer-live-p log)
        (with-current-buffer log
          (string-trim (buffer-substring-no-properties
                        (save-excursion (goto-char (point-max)) (forward-line -3) (point))
                        (point-max))))
      "")))

(defun cairn--capabilities ()
  "Return the client capabilities this Emacs gives cairn."
  `((fs . ((readTextFile . t) (writeTextFile . t)))
    (elicitation . ((form . ,(cairn--empty))))
    (_meta . ((cairn . ((emacsEval . ,(if cairn-offer-eval t :json-false))
                        (openFile . t)))))))

(defun cairn--start ()
  "Start `cairn acp' for the chat and introduce this Emacs to it.
When cairn needs an API key it does not have, one is looked for as
`cairn-api-key' says, and cairn started again with it in its
environment; without one, cairn is stopped and an error says how to
give it."
  (let ((methods (alist-get 'authMethods (cairn--launch))))
    (when methods
      (let ((found (cairn--find-key methods)))
        (cairn--stop)
        (setq cairn--process nil)
        (unless (and found (not (member found cairn--environment)))
          (user-error "%s" (cairn--key-help methods)))
        (setq cairn--environment (list found))
        (when (alist-get 'authMethods (cairn--launch))
          (cairn--stop)
          (setq cairn--process nil)
          (user-error "%s" (cairn--key-help methods)))))))

(defun cairn--launch ()
  "Start `cairn acp' for the chat; what it answers to `initialize'."
  (let* ((default-directory (file-name-as-directory cairn--root))
         (log (get-buffer-create (format " *cairn log: %s*" cairn--root)))
         (process-environment (append cairn--environment process-environment))
         (process
          (condition-case err
              (make-process :name "cairn"
                            :command (append (list cairn-program "acp") cairn-program-args)
                            :connection-type 'pipe
                            :coding 'utf-8-unix
                            :noquery t
                            :stderr log
                            :filter #'cairn--filter
                            :sentinel #'cairn--sentinel)
            (file-error
             (user-error "Cannot start %s (%s): set `cairn-program' to where cairn is"
                         cairn-program (error-message-string err))))))
    (process-put process 'cairn-buffer (current-buffer))
    (process-put process 'cairn-log log)
    ;; The log holds what cairn wrote, not that its pipe closed.
    (set-process-sentinel (get-buffer-process log) #'ignore)
    (setq cairn--process process
          cairn--partial ""
          cairn--callbacks (make-hash-table :test #'equal))
    (cairn--request-sync "initialize"
                         `((protocolVersion . 1)
                           (clientCapabilities . ,(cairn--capabilities))
                           (clientInfo . ((name . "cairn.el") (title . "cairn.el")
                                          (version . ,cairn-version)))))))

(defun cairn--key-of (value provider)
  "The key VALUE gives for PROVIDER: VALUE is a string, or a function.
A function is called with PROVIDER, or with nothing when it takes no
argument."
  (cond ((stringp value) value)
        ((functionp value)
         (if (equal (cdr (func-arity value)) 0) (funcall value) (funcall value provider)))))

(defun cairn--given-key (provider several)
  "The key `cairn-api-key' gives for PROVIDER, if any.
SEVERAL: no model is chosen, and another provider's key would do as
well; a key that names no provider is then not PROVIDER's to take."
  (let ((value cairn-api-key))
    (cond ((null value) nil)
          ((functionp value)
           (unless (and several (equal (cdr (func-arity value)) 0)) (cairn--key-of value provider)))
          ((consp value)
           (cairn--key-of (cdr (cl-find provider value :key (lambda (entry) (format "%s" (car entry)))
                                       :test #'equal))
                          provider))
          ((not several) (cairn--key-of value provider)))))

(defun cairn--stored-key (host)
  "Return the key auth-source has for HOST with the login \"apikey\", if any."
  (when host
    (require 'auth-source)
    (let ((secret (plist-get (car (auth-source-search :host host :user "apikey"
                                                      :require '(:secret) :max 1))
                             :secret)))
      (if (functionp secret) (funcall secret) secret))))

(defun cairn--find-key (methods)
  "\"VARIABLE=KEY\" for the first of cairn's auth METHODS a key is found for."
  (cl-some (lambda (method)
             (let* ((meta (alist-get 'cairn (alist-get '_meta method)))
                    (key (or (cairn--given-key (alist-get 'provider meta) (cdr methods))
                             (cairn--stored-key (alist-get 'host meta)))))
               (when (and (stringp key) (not (string-blank-p key)))
                 (concat (alist-get 'id method) "=" (string-trim key)))))
           methods))

(defun cairn--key-help (methods)
  "What to do to give cairn a key, for the providers of its auth METHODS."
  (let* ((metas (mapcar (lambda (method) (alist-get 'cairn (alist-get '_meta method))) methods))
         (line (lambda (meta)
                 (format "  machine %s login apikey password <your %s key>"
                         (or (alist-get 'host meta) "<the host of its API>")
                         (alist-get 'provider meta)))))
    (if (cdr metas)
        (concat "Cairn needs an API key, and no model is chosen.  Give one provider's key:\n"
                "- a line in auth-source (`auth-sources', e.g. ~/.authinfo.gpg), one of\n"
                (mapconcat line metas "\n")
                "\n- or `cairn-api-key' set to ((PROVIDER . KEY)), PROVIDER one of "
                (mapconcat (lambda (meta) (alist-get 'provider meta)) metas ", ")
                ";\n- or `cairn auth login PROVIDER' in a terminal.\n"
                "A model of your choice goes in `cairn-program-args' (\"--model\" \"provider/model\").")
      (let ((meta (car metas)))
        (format (concat "Cairn needs an API key for %s (%s).  Give it:\n"
                        "- as a line in auth-source (`auth-sources', e.g. ~/.authinfo.gpg):\n%s\n"
                        "- or in `cairn-api-key' (a string, or a function that returns it);\n"
                        "- or with `cairn auth login %s' in a terminal, or in %s in Emacs's environment.")
                (alist-get 'provider meta) (alist-get 'variable meta) (funcall line meta)
                (alist-get 'provider meta) (alist-get 'variable meta))))))

(defun cairn--trusted-p (root)
  "Whether you trust the project folder ROOT, by `cairn-trust-workspace'.
Or by Emacs's own `trusted-content', asked of the folder as of a file in it."
  (let ((folder (file-name-as-directory (file-truename root))))
    (or (eq cairn-trust-workspace t)
        (and (consp cairn-trust-workspace)
             (cl-some (lambda (trusted)
                        (string-prefix-p (file-name-as-directory (file-truename trusted)) folder))
                      cairn-trust-workspace))
        (and (fboundp 'trusted-content-p)
             (with-temp-buffer
               (setq buffer-file-truename folder)
               (trusted-content-p))))))

(defun cairn--session-params (params)
  "PARAMS of session/new or session/load, saying whether you trust the folder.
cairn applies what the folder's own files ask for only when you do."
  (if (cairn--trusted-p cairn--root)
      (append params '((_meta . ((cairn . ((trustWorkspace . t)))))))
    params))

(defun cairn--live-p ()
  "Whether the chat has a running cairn with a session."
  (and (process-live-p cairn--process) cairn--session))

(defun cairn--ensure-session ()
  "Start cairn and a new session for the chat, unless there is one."
  (unless (cairn--live-p)
    (message "Starting cairn in %s…" cairn--root)
    (unless (process-live-p cairn--process) (cairn--start))
    (if cairn--session
        (cairn--load cairn--session t)
      (let ((result (cairn--request-sync "session/new"
                                         (cairn--session-params
                                          `((cwd . ,cairn--root) (mcpServers . []))))))
        (setq cairn--session (alist-get 'sessionId result))
        (cairn--take-modes (alist-get 'modes result))))
    (message "cairn is ready")
    (force-mode-line-update)))

(defun cairn--take-modes (modes)
  "Remember the approval MODES of cairn's session, and the one it is in."
  (when modes
    (setq cairn--mode (alist-get 'currentModeId modes)
          cairn--modes (mapcar (lambda (mode) (cons (alist-get 'id mode) (alist-get 'name mode)))
                               (alist-get 'availableModes modes)))))

(defun cairn--load (id &optional quietly)
  "Continue the stored session ID in the chat.
QUIETLY: its history is on the screen already, from before cairn stopped."
  (setq cairn--session id cairn--quiet quietly)
  (unwind-protect
      (cairn--take-modes
       (alist-get 'modes (cairn--request-sync
                          "session/load"
                          (cairn--session-params
                           `((sessionId . ,id) (cwd . ,cairn--root) (mcpServers . []))))))
    (setq cairn--quiet nil)))

;;;; What cairn asks of the editor

(defun cairn--handle-request (id method params)
  "Answer cairn's request ID for METHOD with PARAMS."
  (pcase method
    ("session/request_permission" (cairn--enqueue 'permission id params))
    ("elicitation/create" (cairn--enqueue 'question id params))
    ("fs/read_text_file"
     (cairn--answer id (lambda () `((content . ,(cairn--read-text-file params))))))
    ("fs/write_text_file"
     (cairn--answer id (lambda () (cairn--write-text-file params))))
    ("_cairn/open_file"
     (cairn--answer id (lambda () (cairn--open-file params) (cairn--empty))))
    ("_cairn/emacs_eval"
     (if cairn-offer-eval
         (run-at-time 0 nil #'cairn--eval-request (current-buffer) id params)
       (cairn--reply-error id -32601 "This Emacs does not let cairn evaluate Lisp")))
    (_ (cairn--reply-error id -32601 (format "cairn.el has no method %s" method)))))

(defun cairn--answer (id work)
  "Answer cairn's request ID with the value of WORK, or its error."
  (condition-case err
      (cairn--reply id (funcall work))
    (error (cairn--reply-error id -32603 (error-message-string err)))))

(defun cairn--read-text-file (params)
  "Return the text of the file PARAMS name, from its buffer if modified.
PARAMS may give the first `line' (1-based) and a `limit' of lines."
  (let* ((file (alist-get 'path params))
         (buffer (find-buffer-visiting file))
         (line (alist-get 'line params))
         (limit (alist-get 'limit params)))
    (with-temp-buffer
      (if (and buffer (buffer-modified-p buffer))
          (insert (with-current-buffer buffer
                    (save-restriction (widen) (buffer-substring-no-properties (point-min) (point-max)))))
        (insert-file-contents file))
      (goto-char (point-min))
      (when line (forward-line (1- line)))
      (let ((start (point)))
        (when limit (forward-line limit))
        (buffer-substring-no-properties start (if limit (point) (point-max)))))))

(defun cairn--write-text-file (params)
  "Write the text PARAMS give into the file they name; the answer to cairn.
A buffer visiting the file takes the text change by change (point,
marks and your undo kept), and each change is remembered for
`cairn-undo'.  A buffer without changes of yours is then saved as
cairn wrote it.  One with changes you have not saved keeps them
unsaved: cairn's change is written to the file without them, or, where
it touches lines you changed, stays in the buffer with yours until you
save.  The answer tells cairn so, as it is then not to write the file."
  (let* ((file (alist-get 'path params))
         (text (alist-get 'content params))
         (buffer (find-buffer-visiting file))
         (chat (current-buffer)))
    (if (not buffer)
        (progn (cairn--write-file file text) (cairn--empty))
      (with-current-buffer buffer
        (let* ((yours (buffer-modified-p))
               (before (save-restriction (widen) (buffer-substring-no-properties (point-min) (point-max))))
               (hunks (cairn--hunks before text))
               (changes (progn
                          ;; Unmodified, it is cairn's text that goes to the disk, whatever it held since.
                          (unless yours (set-visited-file-modtime))
                          (cairn--change-buffer hunks (cairn--lines before) (cairn--lines text)))))
          (with-current-buffer chat
            (setq cairn--turn-edits (append cairn--turn-edits changes)))
          (if (not yours)
              (progn (cairn--save-as-written) (cairn--empty))
            (let ((merged (cairn--merge (cairn--file-text file) before hunks text)))
              (message "cairn changed %s, where you have unsaved changes: they stay unsaved%s"
                       (buffer-name) (if merged "" ", and so does cairn's change"))
              (when merged
                (let ((coding-system-for-write buffer-file-coding-system))
                  (cairn--write-file file merged))
                ;; The buffer is the file as it is now with your changes: saving it asks nothing.
                (set-visited-file-modtime))
              `((_meta . ((cairn . ((unsaved . ,(if merged "person" "all"))))))))))))))

(defun cairn--save-as-written ()
  "Save the current buffer as cairn wrote it.
No hook reformats it, and no backup litters the project."
  (let ((create-lockfiles nil) (before-save-hook nil) (after-save-hook nil)
        (write-contents-functions nil) (require-final-newline nil) (make-backup-files nil)
        (inhibit-message t))
    (save-buffer)))

(defun cairn--write-file (file text)
  "Write TEXT to FILE, in its coding system when it exists."
  (make-directory (file-name-directory file) t)
  (with-temp-buffer
    (let ((coding-system-for-write
           (or coding-system-for-write
               (if (file-exists-p file)
                   (progn (insert-file-contents file) last-coding-system-used)
                 'utf-8-unix))))
      (erase-buffer)
      (insert text)
      (write-region nil nil file nil 'silent))))

(defun cairn--file-text (file)
  "The text of FILE on disk; empty when there is none."
  (with-temp-buffer
    (when (file-exists-p file) (insert-file-contents file))
    (buffer-string)))

;;;; Cairn's changes in your buffers

(defconst cairn--edits-kept 20 "How many turns' changes in buffers are remembered.")

(defun cairn--lines (text)
  "TEXT as a vector of its lines, each with its newline."
  (let ((lines nil) (start 0))
    (while (string-match "\n" text start)
      (push (substring text start (match-end 0)) lines)
      (setq start (match-end 0)))
    (when (< start (length text)) (push (substring text start) lines))
    (vconcat (nreverse lines))))

(defun cairn--matching-lines (a b from-a to-a from-b to-b)
  "Pairs (I . J) of equal lines of the vectors A and B, in order.
The longest common subsequence of A from FROM-A to TO-A and B from
FROM-B to TO-B; none when they are too long to compare line by line."
  (let ((n (- to-a from-a)) (m (- to-b from-b)))
    (when (<= (* n m) 250000)
      (let ((table (make-vector (1+ n) nil)) (pairs nil) (i 0) (j 0)
            (same (lambda (x y) (equal (aref a (+ from-a x)) (aref b (+ from-b y))))))
        (dotimes (k (1+ n)) (aset table k (make-vector (1+ m) 0)))
        ;; Quadratic, and fine: what is compared is what lies between the common start and end.
        (cl-loop for x downfrom (1- n) to 0 do
                 (cl-loop for y downfrom (1- m) to 0 do
                          (aset (aref table x) y
                                (if (funcall same x y)
                                    (1+ (aref (aref table (1+ x)) (1+ y)))
                                  (max (aref (aref table (1+ x)) y) (aref (aref table x) (1+ y)))))))
        (while (and (< i n) (< j m))
          (cond ((funcall same i j)
                 (push (cons (+ from-a i) (+ from-b j)) pairs) (cl-incf i) (cl-incf j))
                ((>= (aref (aref table (1+ i)) j) (aref (aref table i) (1+ j))) (cl-incf i))
                (t (cl-incf j))))
        (nreverse pairs)))))

(defun cairn--hunks (old new)
  "Return how the text OLD becomes NEW, by lines: its hunks, in order.
Each is (OLD-START OLD-END NEW-START NEW-END), lines counted from 0,
the ends excluded."
  (let* ((a (cairn--lines old)) (b (cairn--lines new))
         (n (length a)) (m (length b)) (prefix 0) (suffix 0) (hunks nil))
    (while (and (< prefix n) (< prefix m) (equal (aref a prefix) (aref b prefix)))
      (cl-incf prefix))
    (while (and (< suffix (- n prefix)) (< suffix (- m prefix))
                (equal (aref a (- n suffix 1)) (aref b (- m suffix 1))))
      (cl-incf suffix))
    (let ((i prefix) (j prefix))
      (dolist (pair (append (cairn--matching-lines a b prefix (- n suffix) prefix (- m suffix))
                            (list (cons (- n suffix) (- m suffix)))))
        (when (or (< i (car pair)) (< j (cdr pair)))
          (push (list i (car pair) j (cdr pair)) hunks))
        (setq i (1+ (car pair)) j (1+ (cdr pair)))))
    (nreverse hunks)))

(defun cairn--text-of (lines from to)
  "The text of LINES (a vector) from FROM to TO."
  (apply #'concat (append (cl-subseq lines from to) nil)))

(defun cairn--change-buffer (hunks old new)
  "Make the current buffer's text, whose lines are OLD, the lines NEW by HUNKS.
Return the changes made: (BUFFER START END NEW-TEXT OLD-TEXT), START
and END markers that keep to the new text as you type around it."
  (let ((changes nil) (inhibit-read-only t))
    (undo-boundary)
    (save-excursion
      (save-restriction
        (widen)
        ;; From the last: the lines before a change are where they were.
        (pcase-dolist (`(,a0 ,a1 ,b0 ,b1) (reverse hunks))
          (goto-char (point-min))
          (forward-line a0)
          (let ((start (point))
                (removed (cairn--text-of old a0 a1))
                (added (cairn--text-of new b0 b1)))
            (delete-region start (+ start (length removed)))
            (insert added)
            (push (list (current-buffer) (copy-marker start t) (copy-marker (point)) added removed)
                  changes)))))
    (undo-boundary)
    changes))

(defun cairn--merge (disk buffer hunks new)
  "The text of DISK with cairn's change from BUFFER to NEW (by HUNKS), or nil.
BUFFER is DISK with your unsaved changes.  Nil when cairn's change
touches lines you changed: it cannot go to the file without yours."
  (let ((yours (cairn--hunks disk buffer))
        (disk-lines (cairn--lines disk))
        (new-lines (cairn--lines new))
        (pieces nil) (from 0))
    (catch 'touches
      (pcase-dolist (`(,a0 ,a1 ,b0 ,b1) hunks)
        (let ((shift 0))
          (pcase-dolist (`(,d0 ,d1 ,y0 ,y1) yours)
            (cond ((or (and (< a0 y1) (< y0 a1))
                       (and (= a0 y0) (or (= a0 a1) (= y0 y1))))
                   (throw 'touches nil))
                  ((<= y1 a0) (cl-incf shift (- (- y1 y0) (- d1 d0))))))
          (push (cairn--text-of disk-lines from (- a0 shift)) pieces)
          (push (cairn--text-of new-lines b0 b1) pieces)
          (setq from (- a1 shift))))
      (push (cairn--text-of disk-lines from (length disk-lines)) pieces)
      (apply #'concat (nreverse pieces)))))

(defun cairn--forget-edits (edits)
  "Release the markers of EDITS, what cairn did in buffers."
  (pcase-dolist (`(,_ ,start ,end) edits)
    (set-marker start nil)
    (set-marker end nil)))

(defun cairn--forget-all-edits ()
  "Forget what cairn changed in buffers in this chat, and release the markers."
  (cairn--forget-edits (apply #'append cairn--turn-edits cairn--edits))
  (setq cairn--edits nil cairn--turn-edits nil))

(defun cairn--keep-turn-edits ()
  "Remember for /undo what the turn changed in buffers.
A turn that changed files only on disk counts too: /undo takes back
one turn at a time."
  (when (or cairn--turn-edits cairn--turn-files)
    (push cairn--turn-edits cairn--edits)
    (setq cairn--turn-edits nil)
    (when (> (length cairn--edits) cairn--edits-kept)
      (cairn--forget-edits (car (last cairn--edits)))
      (setq cairn--edits (butlast cairn--edits)))))

(defun cairn--take-back (edits)
  "Undo EDITS, what cairn did in buffers, keeping what you typed.
Cairn has put the files back: a buffer without changes of yours is
reverted from its file (`cairn--revert-changed-buffers').  In one with
text of yours not saved, cairn's changes are taken out, and yours stay,
unsaved; a change you edited yourself is left as it is, and said so."
  (let ((kept nil) (buffers nil))
    (pcase-dolist (`(,buffer ,start ,end ,new ,old) edits)
      (when (and (buffer-live-p buffer) (buffer-modified-p buffer))
        (with-current-buffer buffer
          (save-excursion
            (save-restriction
              (widen)
              (let ((inhibit-read-only t))
                (if (equal (buffer-substring-no-properties start end) new)
                    (progn (goto-char start)
                           (delete-region start end)
                           (insert old))
                  (cl-pushnew (buffer-name) kept :test #'equal))))))
        (cl-pushnew buffer buffers)))
    (dolist (buffer buffers)
      (with-current-buffer buffer
        (when (and buffer-file-name (file-exists-p buffer-file-name))
          (set-visited-file-modtime)
          (when (equal (save-restriction (widen) (buffer-substring-no-properties (point-min) (point-max)))
                       (cairn--file-text buffer-file-name))
            (set-buffer-modified-p nil)))))
    (cairn--forget-edits edits)
    (when kept
      (message "cairn: you changed what cairn wrote in %s: left as it is" (string-join kept ", ")))))

(defun cairn--open-file (params)
  "Show the file PARAMS name, at their `line', without leaving the chat."
  (let* ((buffer (find-file-noselect (alist-get 'path params)))
         (line (alist-get 'line params))
         (window (display-buffer buffer '(nil (inhibit-same-window . t)))))
    (with-current-buffer buffer
      (when line
        (goto-char (point-min))
        (forward-line (1- line))
        (when window
          (set-window-point window (point))
          (with-selected-window window (recenter)))))))

(defun cairn--origin-buffer ()
  "The buffer Lisp from cairn is evaluated in: the one you called cairn from."
  (if (buffer-live-p cairn--origin) cairn--origin (current-buffer)))

(defun cairn--read-forms (code)
  "The forms of CODE, in order."
  (let ((forms nil) (position 0))
    (while (string-match-p "[^[:space:]]"
                           (replace-regexp-in-string ";.*" "" (substring code position)))
      (let ((read (read-from-string code position)))
        (push (car read) forms)
        (setq position (cdr read))))
    (nreverse forms)))

(defun cairn--eval-request (buffer id params)
  "Evaluate the Lisp of cairn's request ID (PARAMS) for the chat BUFFER.
The answer is the value as `prin1' prints it, or the error signalled,
with the messages shown meanwhile."
  (when (buffer-live-p buffer)
    (let* ((code (alist-get 'code params))
           (origin (with-current-buffer buffer (cairn--origin-buffer)))
           (messages (with-current-buffer (messages-buffer) (point-max)))
           (answer
            (condition-case err
                (let ((value nil) (inhibit-quit nil))
                  (with-current-buffer origin
                    (dolist (form (cairn--read-forms code))
                      (setq value (eval form t))))
                  `((value . ,(let ((print-length 200) (print-level 20))
                                (cairn--cap (prin1-to-string value))))))
              ((error quit) `((error . ,(error-message-string err))))))
           (said (with-current-buffer (messages-buffer)
                   (string-trim (buffer-substring-no-properties (min messages (point-max))
                                                                (point-max))))))
      ;; The Lisp may have closed the chat, and with it cairn.
      (when (buffer-live-p buffer)
        (with-current-buffer buffer
          (cairn--reply id (if (string-empty-p said) answer
                             (cons `(messages . ,(cairn--cap said)) answer))))))))

(defun cairn--cap (text)
  "TEXT, cut to a size worth sending to a model."
  (if (> (length text) 100000)
      (concat (substring text 0 100000) (format "… [%d more characters]" (- (length text) 100000)))
    text))

;;;; Questions in the minibuffer

(defun cairn--enqueue (kind id params)
  "Queue cairn's question ID of KIND (`permission' or `question') with PARAMS."
  (setq cairn--questions (append cairn--questions
                                 (list (list :buffer (current-buffer) :id id :kind kind :params params))))
  (when (eq kind 'permission) (cairn--show-permission params))
  (run-at-time 0 nil #'cairn--ask-next))

(defun cairn--ask-next ()
  "Ask the oldest question waiting, when the minibuffer is free."
  (cond ((or cairn--asking (null cairn--questions)) nil)
        ((active-minibuffer-window) (run-at-time 0.5 nil #'cairn--ask-next))
        (t (let ((question (pop cairn--questions)))
             (setq cairn--asking t)
             (unwind-protect
                 (when (buffer-live-p (plist-get question :buffer))
                   (with-current-buffer (plist-get question :buffer)
                     (if (eq (plist-get question :kind) 'permission)
                         (cairn--ask-permission (plist-get question :id) (plist-get question :params))
                       (cairn--ask-question (plist-get question :id) (plist-get question :params)))))
               (setq cairn--asking nil)
               (when cairn--questions (run-at-time 0 nil #'cairn--ask-next)))))))

(defun cairn--cancel-questions ()
  "Answer the chat's questions still waiting: nobody will answer them now."
  (let ((buffer (current-buffer)))
    (setq cairn--questions
          (cl-remove-if (lambda (question)
                          (when (eq (plist-get question :buffer) buffer)
                            (cairn--reply (plist-get question :id)
                                          (if (eq (plist-get question :kind) 'permission)
                                              '((outcome . ((outcome . "cancelled"))))
                                            '((action . "cancel"))))
                            t))
                        cairn--questions))))

(defun cairn--choices (options)
  "The minibuffer's choices for cairn's permission OPTIONS: the terminal's keys."
  (let ((keys '(("once" ?y "yes") ("session" ?s "session") ("workspace" ?w "workspace")
                ("deny" ?n "no")))
        (spare (string-to-list "123456789")))
    (mapcar (lambda (option)
              (let* ((id (alist-get 'optionId option))
                     (known (assoc id keys)))
                (list (if known (nth 1 known) (pop spare))
                      (if known (nth 2 known) (alist-get 'name option))
                      (alist-get 'name option)
                      id)))
            options)))

(defun cairn--settle-input ()
  "Drop keys typed just before a question showed.
They were meant for something else."
  (when (> cairn-approval-guard 0)
    (sleep-for cairn-approval-guard)
    (discard-input)))

(defun cairn--ask-permission (id params)
  "Ask whether cairn may make the call of its request ID (PARAMS)."
  (let* ((call (alist-get 'toolCall params))
         (title (or (alist-get 'title call) "this"))
         (choices (cairn--choices (alist-get 'options params)))
         (visible (get-buffer-window (current-buffer) 'visible)))
    (unless visible (display-buffer (current-buffer)))
    (cairn--settle-input)
    (condition-case nil
        ;; Asked from a timer, where C-g would be read as a key: here it quits.
        (let* ((inhibit-quit nil)
               (picked (read-multiple-choice (format "cairn: allow %s? " title)
                                             (mapcar (lambda (c) (butlast c)) choices)))
               (option (nth 3 (assq (car picked) choices)))
               (reason (when (equal option "deny")
                         (read-string "Why not? The model is told (RET to skip): "))))
          (cairn--set-call-status (alist-get 'toolCallId call)
                                  (if (equal option "deny") "refused" "approved"))
          (cairn--reply id `((outcome . ((outcome . "selected") (optionId . ,option)))
                             ,@(when (and reason (not (string-empty-p reason)))
                                 `((_meta . ((cairn . ((reason . ,reason))))))))))
      (quit
       ;; As Esc in the terminal: no, and stop the turn.
       (cairn--reply id '((outcome . ((outcome . "cancelled")))))
       (cairn-interrupt)))))

(defun cairn--ask-question (id params)
  "Ask the question of cairn's request ID (PARAMS) and send the answer."
  (let* ((properties (alist-get 'properties (alist-get 'requestedSchema params)))
         (content nil))
    (condition-case nil
        (let ((inhibit-quit nil))
          (cairn--settle-input)
          (dolist (property properties)
            (let ((answer (read-string (format "cairn asks: %s\n%s (RET for none): "
                                               (alist-get 'message params)
                                               (or (alist-get 'title (cdr property))
                                                   (car property))))))
              (unless (string-empty-p answer) (push (cons (car property) answer) content))))
          (cairn--reply id (if content `((action . "accept") (content . ,content))
                             '((action . "decline")))))
      (quit (cairn--reply id '((action . "cancel")))))))

;;;; Markdown in the answers

(defvar markdown-hide-markup)
(defvar markdown-fontify-code-blocks-natively)
(declare-function gfm-mode "markdown-mode" ())

(defun cairn--render-markdown (start end)
  "Draw the Markdown of the answer between START and END, its markup hidden.
As `cairn-render-markdown' says; drawn again whole each time, as the
answer grows."
  (when (and cairn-render-markdown (< start end))
    (with-silent-modifications
      (let ((inhibit-read-only t))
        (remove-list-of-text-properties start end '(font-lock-face invisible display help-echo
                                                                   cairn-markdown))
        (if (and (eq cairn-render-markdown t) (require 'markdown-mode nil t))
            (cairn--markdown-mode-draw start end)
          (save-excursion
            (save-restriction
              (narrow-to-region start end)
              (cairn--draw-fences)
              (cairn--draw-inline))))))))

(defun cairn--fontified (text mode &optional setup)
  "Fontify TEXT in MODE, and return how each stretch of it is shown.
Each is (FROM TO FACE INVISIBLE DISPLAY), FROM and TO counted from 0.
SETUP is called in MODE's buffer first."
  (let ((runs nil))
    ;; A buffer of its own each time: modes keep what they found of the text before.
    (with-temp-buffer
      (delay-mode-hooks (funcall mode))
      (when setup (funcall setup))
      (insert text)
      (font-lock-ensure)
      (let ((position (point-min)))
        (while (< position (point-max))
          (let ((next (next-property-change position nil (point-max))))
            (push (list (1- position) (1- next)
                        (or (get-text-property position 'font-lock-face)
                            (get-text-property position 'face))
                        (get-text-property position 'invisible)
                        (get-text-property position 'display))
                  runs)
            (setq position next)))))
    runs))

(defun cairn--markdown-mode-draw (start end)
  "Draw the answer between START and END with markdown-mode's faces.
Its markup is hidden as `markdown-hide-markup' hides it."
  (pcase-dolist (`(,from ,to ,face ,invisible ,display)
                 (cairn--fontified (buffer-substring-no-properties start end) 'gfm-mode
                                   (lambda ()
                                     (setq-local markdown-hide-markup t
                                                 markdown-fontify-code-blocks-natively t))))
    (let ((from (+ start from)) (to (+ start to)))
      (when face (put-text-property from to 'font-lock-face face))
      (when invisible (put-text-property from to 'invisible 'cairn-markup))
      (when (stringp display) (put-text-property from to 'display display)))))

(defun cairn--hide (start end)
  "Hide the markup between START and END."
  (when (< start end) (put-text-property start end 'invisible 'cairn-markup)))

(defun cairn--code-p (position)
  "Whether POSITION is in code, where Markdown is not read."
  (eq (get-text-property position 'cairn-markdown) 'code))

(defun cairn--code-mode (language)
  "The major mode for code in LANGUAGE (a fence's info string), if there is one."
  (let* ((name (downcase (or (car (split-string language "[ \t{]" t)) "")))
         (mode (intern-soft (concat name "-mode"))))
    (cond ((string-empty-p name) nil)
          ((and mode (fboundp mode) (provided-mode-derived-p mode 'prog-mode)) mode)
          ;; `py', `js', `ts', `rs', `sh': what a file of that extension would be visited in.
          (t (let ((by-name (assoc-default (concat "code." name) auto-mode-alist #'string-match)))
               (and (symbolp by-name) (fboundp by-name) by-name))))))

(defun cairn--draw-code (start end language)
  "Show the code between START and END as code, in LANGUAGE's faces when known."
  (put-text-property start end 'cairn-markdown 'code)
  (put-text-property start end 'font-lock-face 'cairn-code)
  (let ((mode (cairn--code-mode language)))
    (when (and mode (< start end))
      (pcase-dolist (`(,from ,to ,face)
                     ;; A mode that cannot start here (a grammar missing) leaves the code plain.
                     (ignore-errors (cairn--fontified (buffer-substring-no-properties start end) mode)))
        (when face
          (put-text-property (+ start from) (+ start to) 'font-lock-face (list face 'cairn-code)))))))

(defun cairn--draw-fences ()
  "Draw the fenced code blocks of the narrowed answer.
A block not yet closed runs to the end: it is still being written."
  (goto-char (point-min))
  (while (re-search-forward "^[ \t]*\\(```+\\|~~~+\\)[ \t]*\\(.*\\)$" nil t)
    (let* ((fence (match-string 1))
           (language (match-string 2))
           (markup (cons (match-beginning 0) (match-end 1)))
           (body (min (point-max) (1+ (match-end 0))))
           (closing (and (re-search-forward (concat "^[ \t]*" (regexp-quote fence) "[ \t]*$") nil t)
                         (match-beginning 0))))
      ;; The opening fence keeps its line, which shows the language's name.
      (cairn--hide (car markup) (cdr markup))
      (cairn--draw-code body (or closing (point-max)) language)
      (when closing (cairn--hide closing (line-end-position)))
      (goto-char (if closing (line-end-position) (point-max))))))

(defun cairn--each-match (regexp function)
  "Call FUNCTION at each match of REGEXP in the narrowed answer outside code."
  (goto-char (point-min))
  (while (re-search-forward regexp nil t)
    (unless (or (cairn--code-p (match-beginning 0)) (cairn--code-p (1- (match-end 0))))
      (save-match-data (save-excursion (funcall function))))))

(defun cairn--draw-span (face inner &optional outer)
  "Show the last match's group INNER in FACE.
The rest of its group OUTER (default 0) is hidden."
  (let ((outer (or outer 0)))
    (cairn--hide (match-beginning outer) (match-beginning inner))
    (cairn--hide (match-end inner) (match-end outer))
    (font-lock-append-text-property (match-beginning inner) (match-end inner) 'font-lock-face face)))

(defun cairn--draw-inline ()
  "Draw the headings, lists, links and inline spans of the narrowed answer."
  (cairn--each-match "`\\([^`\n]+\\)`"
                     (lambda ()
                       (cairn--draw-span 'cairn-code 1)
                       (put-text-property (match-beginning 0) (match-end 0) 'cairn-markdown 'code)))
  (cairn--each-match "^\\(#\\{1,6\\}[ \t]+\\)\\(.+\\)$" (lambda () (cairn--draw-span 'cairn-heading 2)))
  (cairn--each-match "^[ \t]*\\([-*+]\\)[ \t]"
                     (lambda () (put-text-property (match-beginning 1) (match-end 1) 'display "•")))
  (cairn--each-match "\\*\\*\\([^*\n]+\\)\\*\\*" (lambda () (cairn--draw-span 'bold 1)))
  (cairn--each-match "\\_<__\\([^_\n]+\\)__\\_>" (lambda () (cairn--draw-span 'bold 1)))
  (cairn--each-match "\\(?:^\\|[^*[:alnum:]]\\)\\(\\*\\([^*[:space:]]\\(?:[^*\n]*[^*[:space:]]\\)?\\)\\*\\)"
                     (lambda () (cairn--draw-span 'italic 2 1)))
  (cairn--each-match "\\[\\([^]\n]+\\)\\](\\([^)\n]+\\))"
                     (lambda ()
                       (cairn--draw-span 'link 1)
                       (put-text-property (match-beginning 1) (match-end 1) 'help-echo (match-string 2)))))

;;;; The transcript

(defvar cairn-call-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "RET") #'cairn-visit-call)
    (define-key map (kbd "TAB") #'cairn-toggle-call)
    map)
  "Keys on a tool call in the chat.")

(defun cairn--face (text face)
  "TEXT shown in FACE, whether or not font lock is on in the chat."
  (propertize text 'face face 'font-lock-face face))

(defun cairn--insert (&rest strings)
  "Add STRINGS at the end of the transcript."
  (let ((inhibit-read-only t))
    (save-excursion
      (goto-char cairn--output)
      (let ((start (point)))
        (apply #'insert strings)
        (add-text-properties start (point)
                             '(read-only t front-sticky (read-only) rear-nonsticky (read-only)))))))

(defun cairn--fresh-line ()
  "Start a new line in the transcript, unless at the start of one.
An answer written up to here is drawn whole now."
  (when cairn--message-start
    (cairn--render-markdown cairn--message-start cairn--output)
    (set-marker cairn--message-start nil)
    (setq cairn--message-start nil))
  (unless (or (= cairn--output (point-min))
              (eq (char-before cairn--output) ?\n))
    (cairn--insert "\n")))

(defun cairn--write (kind text)
  "Add TEXT of KIND (`message' or `thought') to the transcript."
  (let ((text (if (eq cairn--last kind) text (string-trim-left text "\n+"))))
    (unless (string-empty-p text)
      (unless (eq cairn--last kind)
        (cairn--fresh-line)
        (when (memq cairn--last '(message thought tool)) (cairn--insert "\n"))
        (when (eq kind 'message) (setq cairn--message-start (copy-marker cairn--output))))
      (cairn--insert (if (eq kind 'thought) (cairn--face text 'cairn-thought) text))
      ;; Drawn a line at a time as it streams in: a span is known once its line is.
      (when (and (eq kind 'message) (string-search "\n" text))
        (cairn--render-markdown cairn--message-start cairn--output))
      (setq cairn--last kind))))

(defun cairn--write-user (text)
  "Show TEXT as your message."
  (cairn--fresh-line)
  (unless (= cairn--output (point-min)) (cairn--insert "\n"))
  (cairn--insert (cairn--face "You: " 'cairn-user) text "\n\n")
  (setq cairn--last 'user))

(defun cairn--block-text (block)
  "The text of an ACP content BLOCK."
  (pcase (alist-get 'type block)
    ("text" (alist-get 'text block))
    ("resource_link" (format "[%s]" (alist-get 'name block)))
    (type (format "[%s]" type))))

(defun cairn--relative (file)
  "FILE relative to the project when it is inside it."
  (if (and file cairn--root (file-in-directory-p file cairn--root))
      (file-relative-name file cairn--root)
    file))

(defun cairn--diff-lines (old new)
  "The lines of a diff from OLD to NEW text: (MARK . LINE), MARK one of ?\\s ?- ?+."
  (let* ((old (or old "")) (new (or new ""))
         (a (cairn--lines old)) (b (cairn--lines new)) (i 0) (lines nil)
         (line (lambda (mark text) (push (cons mark (string-remove-suffix "\n" text)) lines))))
    (pcase-dolist (`(,a0 ,a1 ,b0 ,b1) (cairn--hunks old new))
      (while (< i a0) (funcall line ?\s (aref a i)) (cl-incf i))
      (cl-loop for k from a0 below a1 do (funcall line ?- (aref a k)))
      (cl-loop for k from b0 below b1 do (funcall line ?+ (aref b k)))
      (setq i a1))
    (while (< i (length a)) (funcall line ?\s (aref a i)) (cl-incf i))
    (nreverse lines)))

(defun cairn--cut (lines limit)
  "LINES (strings) to show, at most LIMIT of them, saying how many more there are."
  (if (> (length lines) limit)
      (append (cl-subseq lines 0 limit)
              (list (cairn--face (format "… %d more lines" (- (length lines) limit)) 'cairn-thought)))
    lines))

(defun cairn--content-lines (item kind whole)
  "The lines that show ITEM, content of a tool call of KIND; all of them if WHOLE."
  (pcase (alist-get 'type item)
    ("diff"
     (let ((file (cairn--relative (alist-get 'path item))))
       (cons (cairn--face file 'diff-file-header)
             (cairn--cut (mapcar (lambda (line)
                                   (let ((text (concat (char-to-string (car line)) (cdr line))))
                                     (pcase (car line)
                                       (?+ (cairn--face text 'cairn-added))
                                       (?- (cairn--face text 'cairn-removed))
                                       (_ text))))
                                 (cairn--diff-lines (alist-get 'oldText item) (alist-get 'newText item)))
                         (if whole most-positive-fixnum cairn-diff-lines)))))
    ("content"
     (let* ((text (or (cairn--block-text (alist-get 'content item)) ""))
            (lines (cl-remove-if (lambda (line) (string-prefix-p "```" line))
                                 (split-string (string-trim-right text) "\n"))))
       ;; What a read found is the model's to read; the chat says how much, unless asked for all.
       (cond (whole lines)
             ((and (equal kind "read") (cdr lines))
              (list (cairn--face (format "(%d lines; TAB shows them)" (length lines)) 'cairn-thought)))
             (t (cairn--cut lines cairn-output-lines)))))
    ("terminal" (list (cairn--face "(in a terminal)" 'cairn-thought)))))

(defun cairn--call-text (call)
  "Return the text of CALL in the transcript."
  (let* ((status (cairn--call-status call))
         (face (pcase status
                 ((or "completed" "approved") 'cairn-done)
                 ((or "failed" "refused") 'cairn-failed)
                 (_ 'cairn-pending)))
         (word (pcase status
                 ("completed" "done") ("in_progress" "running") ("asking" "asks you")
                 ((pred null) "pending") (_ status)))
         (lines (mapcan (lambda (item) (cairn--content-lines item (cairn--call-kind call)
                                                             (cairn--call-expanded call)))
                        (cairn--call-content call))))
    (concat (cairn--face "▸ " face)
            (cairn--face (or (cairn--call-title call) "tool call") 'cairn-tool)
            "  " (cairn--face word face)
            (mapconcat (lambda (line) (concat "\n    " line)) lines ""))))

(defun cairn--draw-call (call)
  "Show CALL again where it is, as it is now."
  (let ((inhibit-read-only t))
    (save-excursion
      (delete-region (cairn--call-start call) (cairn--call-end call))
      (goto-char (cairn--call-start call))
      (insert (cairn--call-text call))
      (add-text-properties (cairn--call-start call) (point)
                           `(read-only t front-sticky (read-only) rear-nonsticky (read-only)
                                       cairn-call ,call keymap ,cairn-call-map))
      (set-marker (cairn--call-end call) (point)))))

(defun cairn--call-at-point ()
  "The tool call shown at point."
  (or (get-text-property (point) 'cairn-call)
      (user-error "No tool call here")))

(defun cairn-toggle-call ()
  "Show all of the tool call at point, or only its start again."
  (interactive)
  (let ((call (cairn--call-at-point)))
    (setf (cairn--call-expanded call) (not (cairn--call-expanded call)))
    (cairn--draw-call call)
    (goto-char (cairn--call-start call))))

(defun cairn-visit-call ()
  "Visit the file the tool call at point acted on, where it acted."
  (interactive)
  (let* ((call (cairn--call-at-point))
         (place (car (cairn--call-locations call)))
         (diff (cl-find "diff" (cairn--call-content call)
                        :key (lambda (item) (alist-get 'type item)) :test #'equal))
         (file (or (alist-get 'path place) (alist-get 'path diff)))
         (line (alist-get 'line place)))
    (unless file (user-error "This call names no file"))
    (find-file-other-window file)
    (when line
      (goto-char (point-min))
      (forward-line (1- line)))))

(defun cairn--call-for (update)
  "The call UPDATE is about; a new one shown at the end when there is none yet."
  (let ((id (alist-get 'toolCallId update)))
    (or (gethash id cairn--calls)
        (let ((call (cairn--call-create)))
          (cairn--fresh-line)
          (setf (cairn--call-start call) (copy-marker cairn--output))
          (cairn--insert "…")
          (setf (cairn--call-end call) (copy-marker cairn--output))
          ;; Outside the call's own text, so redrawing it never moves what follows.
          (cairn--insert "\n")
          (setq cairn--last 'tool)
          (puthash id call cairn--calls)))))

(defun cairn--update-call (update)
  "Show the tool call of UPDATE as it is now."
  (let ((call (cairn--call-for update)))
    (dolist (field '(title kind status content locations))
      (let ((value (assq field update)))
        (when value
          (pcase field
            ('title (setf (cairn--call-title call) (cdr value)))
            ('kind (setf (cairn--call-kind call) (cdr value)))
            ('status (setf (cairn--call-status call) (cdr value)))
            ('content (setf (cairn--call-content call) (cdr value)))
            ('locations (setf (cairn--call-locations call) (cdr value)))))))
    (when (equal (cairn--call-status call) "completed")
      (dolist (item (cairn--call-content call))
        (when (equal (alist-get 'type item) "diff")
          (let ((file (cairn--relative (alist-get 'path item))))
            (cl-pushnew file cairn--files :test #'equal)
            (cl-pushnew file cairn--turn-files :test #'equal)))))
    (cairn--draw-call call)))

(defun cairn--set-call-status (id status)
  "Show the call ID with STATUS (after your answer)."
  (let ((call (and id (gethash id cairn--calls))))
    (when call
      (setf (cairn--call-status call) status)
      (cairn--draw-call call))))

(defun cairn--show-permission (params)
  "Show the call cairn asks about (PARAMS), with what it would do."
  (cairn--update-call (cons '(status . "asking")
                            (assq-delete-all 'status (copy-alist (alist-get 'toolCall params))))))

(defun cairn--update (update)
  "Show a session UPDATE from cairn."
  (pcase (alist-get 'sessionUpdate update)
    ("agent_message_chunk"
     (let ((text (cairn--block-text (alist-get 'content update))))
       ;; How cairn's /undo says it put files back (src/ui/undoReport.ts).
       (when (and cairn--undoing (string-match-p "^Undid checkpoint " text))
         (setq cairn--undoing t))
       (cairn--write 'message text)))
    ("agent_thought_chunk" (cairn--write 'thought (cairn--block-text (alist-get 'content update))))
    ("user_message_chunk" (cairn--write-user (cairn--block-text (alist-get 'content update))))
    ((or "tool_call" "tool_call_update") (cairn--update-call update))
    ("plan" (setq cairn--plan (alist-get 'entries update)) (cairn--draw-footer))
    ("usage_update"
     (setq cairn--context (cons (alist-get 'used update) (alist-get 'size update)))
     (let ((cost (alist-get 'cost update)))
       (when cost (setq cairn--cost (alist-get 'amount cost))))
     (force-mode-line-update))
    ("current_mode_update" (setq cairn--mode (alist-get 'currentModeId update))
     (force-mode-line-update))
    ("available_commands_update"
     (setq cairn--commands (mapcar (lambda (command) (concat "/" (alist-get 'name command)))
                                   (alist-get 'availableCommands update))))))

(defun cairn--handle-notification (method params)
  "Handle cairn's notification METHOD with PARAMS."
  (when (and (equal method "session/update")
             (not cairn--quiet)
             (or (null cairn--session) (equal (alist-get 'sessionId params) cairn--session)))
    (cairn--update (alist-get 'update params))))

;;;; The footer: TODO list and prompt

(defun cairn--plan-text ()
  "The TODO list, as shown above the prompt."
  (when cairn--plan
    (let ((done (cl-count "completed" cairn--plan :key (lambda (entry) (alist-get 'status entry))
                          :test #'equal)))
      (concat (cairn--face (format "TODO (%d/%d done)\n" done (length cairn--plan)) 'bold)
              (mapconcat (lambda (entry)
                           (pcase (alist-get 'status entry)
                             ("completed" (cairn--face (concat "  [x] " (alist-get 'content entry))
                                                      'cairn-thought))
                             ("in_progress" (concat "  [>] " (alist-get 'content entry)))
                             (_ (concat "  [ ] " (alist-get 'content entry)))))
                         cairn--plan "\n")
              "\n"))))

(defun cairn--draw-footer ()
  "Draw what stays below the transcript: the TODO list and the prompt.
Points in what you are typing (yours, and those of the windows on the
chat) stay where they were in it."
  (let* ((inhibit-read-only t)
         (start (marker-position cairn--output))
         (typing (lambda (position) (and (>= position start) (- position cairn--input))))
         (point (funcall typing (point)))
         (windows (delq nil (mapcar (lambda (window)
                                      (let ((offset (funcall typing (window-point window))))
                                        (and offset (cons window offset))))
                                    (get-buffer-window-list nil nil t)))))
    (save-excursion
      (delete-region start cairn--input)
      (goto-char start)
      (insert "\n"
              (or (cairn--plan-text) "")
              (if cairn--busy
                  (cairn--face "working… C-c C-k interrupts\n" 'cairn-thought)
                "")
              (cairn--face "cairn> " 'cairn-prompt))
      (add-text-properties start (point)
                           '(read-only t front-sticky (read-only) rear-nonsticky t))
      (set-marker cairn--input (point))
      (set-marker cairn--output start))
    (when point (goto-char (+ cairn--input (max 0 point))))
    (dolist (window windows)
      (set-window-point (car window) (+ cairn--input (max 0 (cdr window)))))))

(defun cairn--header-line ()
  "The chat's header: the session's mode, cost, context and changed files."
  (let ((parts
         (list (concat "cairn · " (file-name-nondirectory cairn--root))
               (when cairn--mode
                 (concat "mode " (or (cdr (assoc cairn--mode cairn--modes)) cairn--mode)))
               (when cairn--cost (format "$%.4f" cairn--cost))
               (when (and (car cairn--context) (cdr cairn--context) (> (cdr cairn--context) 0))
                 (format "context %d%%" (/ (* 100 (car cairn--context)) (cdr cairn--context))))
               (when cairn--files
                 (format "%d file%s changed" (length cairn--files) (if (cdr cairn--files) "s" "")))
               (cond (cairn--busy "working")
                     ((not (process-live-p cairn--process)) "stopped")))))
    ;; A header line reads % as the start of a construct.
    (string-replace "%" "%%" (string-join (delq nil parts) " · "))))

(defun cairn--number (n)
  "N with thousands separated."
  (let ((text (number-to-string n)))
    (while (string-match "\\([0-9]\\)\\([0-9]\\{3\\}\\)\\(,\\|\\'\\)" text)
      (setq text (replace-match "\\1,\\2\\3" t nil text)))
    text))

(defun cairn--turn-line (result)
  "The line that ends a turn that ended with RESULT.
It says how the turn ended, its tokens and cost, and the files it changed.
A turn whose changes nothing checked (cairn's status `unverified') says so,
in the face of a warning."
  (let* ((meta (alist-get 'cairn (alist-get '_meta result)))
         (usage (alist-get 'usage meta))
         (cost (alist-get 'cost_usd usage))
         (unchecked (and (equal (alist-get 'stopReason result) "end_turn")
                         (equal (alist-get 'status meta) "unverified"))))
    (concat
     (cairn--face "── " 'cairn-footer)
     (if unchecked
         (cairn--face "done, not checked" 'cairn-pending)
       (cairn--face (pcase (alist-get 'stopReason result)
                      ("end_turn" "done") ("cancelled" "interrupted")
                      ("max_tokens" "cut at the token limit")
                      ("max_turn_requests" "stopped at a limit")
                      ("refusal" "refused by the provider") (reason (or reason "ended")))
                    'cairn-footer))
     (cairn--face
      (concat
       (when usage
         (format " · %s in, %s out" (cairn--number (or (alist-get 'input_tokens usage) 0))
                 (cairn--number (or (alist-get 'output_tokens usage) 0))))
       (when cost (format " · $%.4f" cost))
       (when cairn--cost (format " · session $%.4f" cairn--cost))
       (when cairn--turn-files
         (concat " · changed " (string-join (reverse cairn--turn-files) ", ")))
       "\n")
      'cairn-footer))))

;;;; Turns

(defun cairn--prompt (blocks shown)
  "Send cairn a message made of content BLOCKS, showing it as SHOWN."
  (when cairn--busy (user-error "Cairn is still working: C-c C-k interrupts it"))
  (cairn--ensure-session)
  (cairn--write-user shown)
  (setq cairn--busy t cairn--turn-files nil cairn--turn-edits nil
        cairn--undoing (and (equal (string-trim shown) "/undo") 'asked))
  (cairn--draw-footer)
  (force-mode-line-update)
  (let ((buffer (current-buffer)))
    (cairn--request "session/prompt" `((sessionId . ,cairn--session) (prompt . ,(vconcat blocks)))
                    (lambda (result error)
                      (when (buffer-live-p buffer)
                        (with-current-buffer buffer (cairn--turn-ended result error)))))))

(defun cairn--turn-ended (result error)
  "Close the turn that ended with RESULT, or ERROR."
  (setq cairn--busy nil cairn--last nil)
  (cairn--fresh-line)
  (if error
      (cairn--insert (cairn--face (format "Error: %s\n" (alist-get 'message error)) 'cairn-failed))
    (cairn--insert "\n" (cairn--turn-line result)))
  (if (eq cairn--undoing t)
      ;; cairn put the files back: its changes leave the buffers too, and what you typed stays.
      (cairn--take-back (pop cairn--edits))
    (cairn--keep-turn-edits))
  (setq cairn--undoing nil)
  (cairn--revert-changed-buffers cairn--root)
  (cairn--draw-footer)
  (force-mode-line-update)
  (run-hooks 'cairn-turn-end-hook))

(defun cairn--revert-changed-buffers (root)
  "Revert the buffers of files under ROOT that changed on disk.
Buffers with changes of yours are left as they are."
  (dolist (buffer (buffer-list))
    (let ((file (buffer-file-name buffer)))
      (when (and file (file-in-directory-p file root) (file-exists-p file)
                 (not (buffer-modified-p buffer))
                 (not (verify-visited-file-modtime buffer)))
        (with-current-buffer buffer (revert-buffer t t t))))))

(defun cairn--text-block (text)
  "TEXT as an ACP content block."
  `((type . "text") (text . ,text)))

;;;; The chat mode

(defvar cairn-chat-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'cairn-send)
    (define-key map (kbd "C-c C-k") #'cairn-interrupt)
    (define-key map (kbd "C-c C-m") #'cairn-set-mode)
    (define-key map (kbd "C-c C-r") #'cairn-resume)
    (define-key map (kbd "C-c C-n") #'cairn-new-session)
    (define-key map (kbd "C-c C-u") #'cairn-undo)
    (define-key map (kbd "C-c C-f") #'cairn-changed-files)
    (define-key map (kbd "C-c C-l") #'cairn-show-log)
    (define-key map (kbd "M-p") #'cairn-previous-input)
    (define-key map (kbd "M-n") #'cairn-next-input)
    map)
  "Keys of the cairn chat.")

(define-derived-mode cairn-chat-mode text-mode "cairn"
  "The chat with cairn about a project.
Type below the prompt; \\[cairn-send] sends, \\[cairn-interrupt] interrupts.

\\{cairn-chat-mode-map}"
  (setq-local header-line-format '(:eval (cairn--header-line)))
  (setq-local mode-line-process '(:eval (when cairn--busy ":working")))
  (setq cairn--calls (make-hash-table :test #'equal)
        cairn--callbacks (make-hash-table :test #'equal)
        cairn--output (copy-marker (point-max) t)
        cairn--input (copy-marker (point-max)))
  (add-hook 'completion-at-point-functions #'cairn--complete-command nil t)
  (add-hook 'kill-buffer-hook #'cairn--stop nil t)
  (add-hook 'kill-buffer-hook #'cairn--forget-all-edits nil t)
  (add-to-invisibility-spec 'cairn-markup)
  (cairn--draw-footer))

(defun cairn--stop ()
  "Stop the chat's cairn, and drop its log."
  (when (processp cairn--process)
    ;; The chat is going: nothing is to be shown in it of cairn's end.
    (process-put cairn--process 'cairn-buffer nil)
    (let ((log (process-get cairn--process 'cairn-log)))
      (delete-process cairn--process)
      (when (buffer-live-p log)
        (let ((stderr (get-buffer-process log)))
          (when stderr (delete-process stderr)))
        (kill-buffer log)))))

(defun cairn--complete-command ()
  "Complete a slash command at the start of your message."
  (when (and cairn--input (>= (point) cairn--input))
    (save-excursion
      (let ((end (point)))
        (goto-char cairn--input)
        (when (looking-at "/[[:alnum:]_-]*")
          (when (<= end (match-end 0))
            (list (match-beginning 0) (match-end 0) cairn--commands)))))))

(defun cairn--project-root ()
  "The folder of the current project, or the current folder."
  (let ((project (project-current)))
    (directory-file-name
     (file-truename (if project (project-root project) default-directory)))))

(defun cairn--find-chat (root)
  "The chat buffer of the project at ROOT, if there is one."
  (cl-find-if (lambda (buffer)
                (and (eq (buffer-local-value 'major-mode buffer) 'cairn-chat-mode)
                     (equal (buffer-local-value 'cairn--root buffer) root)))
              (buffer-list)))

(defun cairn--chat-buffer (root)
  "The chat buffer of the project at ROOT, made when there is none."
  (or (cairn--find-chat root)
      (with-current-buffer (generate-new-buffer
                            (format "*cairn: %s*" (file-name-nondirectory root)))
        (cairn-chat-mode)
        (setq cairn--root root default-directory (file-name-as-directory root))
        (current-buffer))))

(defun cairn--in-chat-of (root work)
  "Call WORK in the chat of the project at ROOT, made when there is none.
A chat made for WORK goes again when WORK fails (cairn cannot start,
wants a key): no empty chat is left behind."
  (let* ((existing (cairn--find-chat root))
         (buffer (or existing (cairn--chat-buffer root))))
    (condition-case err
        (with-current-buffer buffer (funcall work))
      ((error quit)
       (unless existing (kill-buffer buffer))
       (signal (car err) (cdr err))))))

(defun cairn--chat (&optional origin)
  "The chat of the current project, with a running session.
ORIGIN (default: the current buffer) is noted as where you were."
  (let ((from (or origin (current-buffer))))
    (cairn--in-chat-of (cairn--project-root)
                       (lambda ()
                         (unless (eq from (current-buffer)) (setq cairn--origin from))
                         (cairn--ensure-session)
                         (current-buffer)))))

(defmacro cairn--in-chat (&rest body)
  "Run BODY in the chat of the current project (the current buffer, in a chat)."
  (declare (indent 0) (debug t))
  `(if (derived-mode-p 'cairn-chat-mode)
       (progn ,@body)
     (cairn--in-chat-of (cairn--project-root) (lambda () ,@body))))

;;;; Commands

;;;###autoload
(defun cairn (&optional resume)
  "Open the cairn chat of the current project, starting cairn when needed.
With a prefix argument, RESUME a stored session of the project instead."
  (interactive "P")
  (let ((origin (current-buffer)))
    (if resume
        (pop-to-buffer
         (cairn--in-chat-of (cairn--project-root)
                            (lambda ()
                              (unless (eq origin (current-buffer)) (setq cairn--origin origin))
                              (call-interactively #'cairn-resume))))
      (pop-to-buffer (cairn--chat origin))
      (goto-char (point-max)))
    (current-buffer)))

(defun cairn-send ()
  "Send what you typed below the prompt."
  (interactive)
  (let ((text (string-trim (buffer-substring-no-properties cairn--input (point-max)))))
    (when (string-empty-p text) (user-error "Type a message below the prompt first"))
    (when cairn--busy (user-error "Cairn is still working: C-c C-k interrupts it"))
    (delete-region cairn--input (point-max))
    (push text cairn--history)
    (setq cairn--history-index nil)
    (cairn--prompt (list (cairn--text-block text)) text)))

(defun cairn-interrupt ()
  "Stop what cairn is doing, keeping what it did."
  (interactive)
  (cairn--in-chat
    (when (and cairn--busy (process-live-p cairn--process))
      (cairn--cancel-questions)
      (cairn--notify "session/cancel" `((sessionId . ,cairn--session)))
      (message "cairn: interrupted"))))

;;;###autoload
(defun cairn-run (task)
  "Have cairn carry out TASK whole, as `cairn run' does.
It plans, edits, runs the project's checks and reviews its work (the
chat's /run command)."
  (interactive (list (read-string "cairn, carry out: " nil 'cairn-task-history)))
  (let ((buffer (cairn--chat)))
    (display-buffer buffer)
    (with-current-buffer buffer
      (cairn--prompt (list (cairn--text-block (concat "/run " task))) (concat "/run " task)))))

;;;###autoload
(defun cairn-do-region (start end instruction)
  "Ask cairn to do INSTRUCTION with the text between START and END."
  (interactive
   (if (use-region-p)
       (list (region-beginning) (region-end) (read-string "cairn, with the region: " nil 'cairn-task-history))
     (user-error "Mark a region first")))
  (let* ((file (buffer-file-name))
         (first (line-number-at-pos start t))
         (last (line-number-at-pos (if (and (> end start) (save-excursion (goto-char end) (bolp)))
                                       (1- end) end)
                                   t))
         (text (buffer-substring-no-properties start end))
         (buffer (cairn--chat))
         (where (if file
                    (format "lines %d-%d of %s" first last
                            (with-current-buffer buffer (cairn--relative (file-truename file))))
                  (format "from the buffer %s" (buffer-name)))))
    (display-buffer buffer)
    (with-current-buffer buffer
      (cairn--prompt (list (cairn--text-block
                            (format "%s\n\nThe region (%s):\n```\n%s\n```" instruction where
                                    (string-remove-suffix "\n" text))))
                     (format "%s  [%s]" instruction where)))))

;;;###autoload
(defun cairn-resume (&optional session)
  "Continue a stored SESSION of the project in its chat; you pick one when called.
Return the chat buffer."
  (interactive)
  (cairn--in-chat
    (unless (derived-mode-p 'cairn-chat-mode) (error "Not a cairn chat"))
    (when cairn--busy (user-error "Cairn is still working: C-c C-k interrupts it"))
    (unless (process-live-p cairn--process) (cairn--start))
    (let ((id (or session (cairn--pick-session))))
      (when (and cairn--session (not (equal cairn--session id)))
        (cairn--request "session/close" `((sessionId . ,cairn--session))))
      (cairn--clear)
      (cairn--load id)
      (cairn--fresh-line)
      (setq cairn--last nil)
      (cairn--draw-footer)
      (pop-to-buffer (current-buffer))
      (current-buffer))))

(defun cairn--sessions ()
  "The project's stored sessions, newest first: alists of id, title and time."
  (let ((cursor nil) (sessions nil) (pages 0))
    (while (progn
             (let ((page (cairn--request-sync "session/list"
                                              `((cwd . ,cairn--root)
                                                ,@(when cursor `((cursor . ,cursor)))))))
               (setq sessions (append sessions (alist-get 'sessions page))
                     cursor (alist-get 'nextCursor page)
                     pages (1+ pages)))
             (and cursor (< pages 10))))
    sessions))

(defun cairn--pick-session ()
  "Ask which stored session of the project to continue."
  (let* ((choices (mapcar (lambda (session)
                            (cons (format "%s  %s" (substring (or (alist-get 'updatedAt session) "")
                                                              0 (min 16 (length (or (alist-get 'updatedAt session) ""))))
                                          (alist-get 'title session))
                                  (alist-get 'sessionId session)))
                          (cairn--sessions))))
    (unless choices (user-error "No stored session of cairn in %s" cairn--root))
    (cdr (assoc (completing-read "Resume cairn session: " choices nil t) choices))))

(defun cairn--clear ()
  "Empty the chat for another session."
  (let ((inhibit-read-only t))
    (erase-buffer)
    (clrhash cairn--calls)
    (setq cairn--plan nil cairn--files nil cairn--cost nil cairn--context nil cairn--last nil
          cairn--message-start nil)
    ;; Another session's /undo takes back its own turns, not these.
    (cairn--forget-all-edits)
    (set-marker cairn--output (point-min))
    (set-marker cairn--input (point-min))
    (cairn--draw-footer)))

(defun cairn-new-session ()
  "Start a new session in the chat, leaving the current one stored."
  (interactive)
  (cairn--in-chat
    (when cairn--busy (user-error "Cairn is still working: C-c C-k interrupts it"))
    (when (and cairn--session (process-live-p cairn--process))
      (cairn--request "session/close" `((sessionId . ,cairn--session))))
    (setq cairn--session nil)
    (cairn--clear)
    (cairn--ensure-session)))

(defun cairn-set-mode (mode)
  "Switch the session to approval MODE (ask, auto-edit, auto, read-only)."
  (interactive
   (cairn--in-chat
     (list (let ((names (mapcar (lambda (mode) (cons (format "%s (%s)" (cdr mode) (car mode)) (car mode)))
                                cairn--modes)))
             (cdr (assoc (completing-read "Approval mode: " names nil t) names))))))
  (cairn--in-chat
    (cairn--request-sync "session/set_mode" `((sessionId . ,cairn--session) (modeId . ,mode)))
    (setq cairn--mode mode)
    (force-mode-line-update)))

;;;###autoload
(defun cairn-undo ()
  "Take back cairn's last change to the project's files.
In a chat that is not busy this is its /undo; otherwise `cairn undo' runs."
  (interactive)
  (let* ((root (cairn--project-root))
         (chat (cairn--find-chat root)))
    (if (and chat (with-current-buffer chat (and (cairn--live-p) (not cairn--busy))))
        (with-current-buffer chat (cairn--prompt (list (cairn--text-block "/undo")) "/undo"))
      (let ((output (get-buffer-create "*cairn undo*"))
            (default-directory (file-name-as-directory root)))
        (with-current-buffer output (let ((inhibit-read-only t)) (erase-buffer)))
        (make-process :name "cairn undo" :buffer output :noquery t
                      :command (list cairn-program "undo" "--cwd" root)
                      :sentinel (lambda (process _event)
                                  (unless (process-live-p process)
                                    (cairn--revert-changed-buffers root)
                                    (display-buffer (process-buffer process)))))))))

(defun cairn-changed-files ()
  "Visit one of the files the session changed."
  (interactive)
  (cairn--in-chat
    (unless cairn--files (user-error "Cairn has changed no file in this session"))
    (find-file-other-window
     (expand-file-name (completing-read "Changed by cairn: " (reverse cairn--files) nil t)
                       cairn--root))))

(defun cairn-show-log ()
  "Show what cairn wrote to its log (its standard error)."
  (interactive)
  (cairn--in-chat
    (let ((log (and cairn--process (process-get cairn--process 'cairn-log))))
      (unless (buffer-live-p log) (user-error "Cairn has not started here"))
      (display-buffer log))))

(defun cairn-previous-input (n)
  "Put your Nth previous message below the prompt."
  (interactive "p")
  (unless cairn--history (user-error "No message sent yet"))
  (setq cairn--history-index
        (max 0 (min (1- (length cairn--history)) (+ (or cairn--history-index -1) n))))
  (delete-region cairn--input (point-max))
  (goto-char (point-max))
  (insert (nth cairn--history-index cairn--history)))

(defun cairn-next-input (n)
  "Put your Nth next message below the prompt."
  (interactive "p")
  (cairn-previous-input (- n)))

(defvar cairn-command-map
  (let ((map (make-sparse-keymap)))
    (define-key map "c" #'cairn)
    (define-key map "r" #'cairn-run)
    (define-key map "e" #'cairn-do-region)
    (define-key map "s" #'cairn-resume)
    (define-key map "u" #'cairn-undo)
    map)
  "Keys for cairn's commands, to bind to a prefix of your choice.")
;;;###autoload (autoload 'cairn-command-map "cairn" nil t 'keymap)
(fset 'cairn-command-map cairn-command-map)

(provide 'cairn)

;;; cairn.el ends here
