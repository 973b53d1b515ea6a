"""What a human study presents and records: tasks, questions, columns, settings.

The vocabulary shared by the study builder (:mod:`stecflow.studies.stimuli`), the
collection server (:mod:`stecflow.studies.server`) and the judgments
(:mod:`stecflow.judgments`): the kinds the picture-grid pages show
(:data:`TASKS`), the questions of the rating task
(:data:`ADEQUACY_QUESTION`, :data:`FLUENCY_QUESTION`), the columns of a response
table (:data:`RESPONSE_COLUMNS`), the presentation settings of a study
(:class:`StudySettings`, config ``studies[].experiment``) and every string the
participant sees, in English and Japanese (:data:`UI_STRINGS`, selected by
``experiment.language`` and overridden one by one by ``experiment.strings``;
:data:`SITUATED_UI_STRINGS` for the situated identification trial of seed 000,
:data:`TEXT_UI_STRINGS` for the text-rating and text-preference trials of
:mod:`stecflow.studies.text`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from stecflow.core.errors import ConfigError
from stecflow.studykinds.registry import in_family

__all__ = [
    "ADEQUACY_QUESTION",
    "DEFAULT_TITLES",
    "FLUENCY_QUESTION",
    "LANGUAGES",
    "RESPONSE_COLUMNS",
    "SITUATED_TITLES",
    "SITUATED_UI_STRINGS",
    "TASKS",
    "TEXT_TITLES",
    "TEXT_UI_STRINGS",
    "UI_STRINGS",
    "URL_PARAMS",
    "StudySettings",
    "paradigm_settings",
    "placeholders",
    "read_catalogue",
]

#: The study kinds whose trials show an item's pictures in a grid (the kinds of
#: the ``grid`` family, :mod:`stecflow.studykinds`).
TASKS = in_family("grid")

#: The Adequacy question of TUNA-REG'09 (seed 001, section 5.2), verbatim.
ADEQUACY_QUESTION = (
    "How clear is this description? Try to imagine someone who could see the same "
    "grid with the same pictures, but didn't know which of the pictures was the "
    "target. How easily would they be able to find it, based on the phrase given?"
)
#: The Fluency question of TUNA-REG'09 (seed 001, section 5.2), verbatim.
FLUENCY_QUESTION = (
    "How fluent is this description? Here your task is to judge how well the "
    "phrase reads. Is it good, clear English?"
)

#: Columns of a response table, one row per answered trial, in this order. The
#: server's export (:func:`stecflow.studies.server.export_responses`) and the file
#: the page saves in offline mode both have exactly these columns; see
#: :mod:`stecflow.studies.server`
#: for what each holds.
RESPONSE_COLUMNS = (
    "study",
    "task",
    "variant",
    "session",
    "participant",
    "session_status",
    "list",
    "order",
    "item",
    "system",
    "subdomain",
    "practice",
    "filler",
    "adequacy",
    "fluency",
    "chosen_entity",
    "target_entity",
    "correct",
    "cant_tell",
    "timeout",
    "reading_time_ms",
    "identification_time_ms",
    "rt_ms",
    "audio_onset_ms",
    "click_x",
    "click_y",
)


#: Languages of the participant's interface (``experiment.language``).
LANGUAGES = ("en", "ja")
#: The page title of a study that sets none (``experiment.title``), by language.
DEFAULT_TITLES = {"en": "Descriptions of pictures", "ja": "絵の説明"}
#: The page title of a situated identification study (seed 000) that sets none:
#: its participants find the Tangram piece a speaker meant, not a picture.
SITUATED_TITLES = {"en": "Which piece is meant?", "ja": "どのピースのことでしょう"}

#: Every string the participant sees, by language. ``{name}`` marks a value filled
#: in when the string is shown (the same names in every language). The English
#: strings are those stecflow has always shown; the questions are TUNA-REG'09's
#: verbatim (seed 001). The Japanese strings are stecflow's translation: seed 000
#: (section 5.1) gives its Japanese participants an "I don't know" button but
#: quotes it only in English; ``cant_tell`` renders it わからない ("I don't know").
#: ``ja`` has every key of ``en``; a study replaces any string
#: with ``experiment.strings`` (e.g. ``cant_tell: "I don't know"`` for an English
#: study following seed 000). Keys: ``html_*`` are in ``index.html``,
#: ``instructions_*``, ``*_question`` and ``*_label_*`` in the study document's
#: ``texts``, the rest are used by ``experiment.js``.
UI_STRINGS: dict[str, dict[str, str]] = {
    "en": {
        # index.html
        "html_noscript": "This experiment needs JavaScript. Please enable it and "
        "reload the page.",
        "html_loading": "Loading\u2026",
        # instructions (stimuli.json texts.instructions)
        "instructions_rating_intro": "In this experiment you will see descriptions "
        "of pictures. Each screen shows a grid of pictures and a description of one "
        "of them, the target, which is marked by a red frame. Some descriptions were "
        "written by people, others were produced by computer programs.",
        "instructions_rating_sliders": "For each description you answer two "
        "questions by moving a slider: the further to the right, the better your "
        "judgment; the further to the left, the worse. There are no numbers; use the "
        "whole range as you see fit.",
        "instructions_together": "In each trial you will see a grid of pictures "
        "together with a description of one of them. Click the picture you think is "
        "meant, as quickly and as accurately as you can.",
        "instructions_read_first": "In each trial you will first see a description "
        "of one of the pictures in a grid. Read it, then click 'Show pictures' (or "
        "press the space bar) to see the grid, and click the picture you think is "
        "meant, as quickly and as accurately as you can.",
        "instructions_spoken": "In each trial you will see a grid of pictures and "
        "hear a description of one of them, read out by a synthetic voice (please "
        "wear headphones). Click the picture you think is meant, as quickly and as "
        "accurately as you can; you may click before the voice has finished.",
        "instructions_trial_start": "You start each trial yourself by clicking "
        "'Start' or pressing the space bar. You will then hear a short beep and see "
        "a cross (+) in the middle of the screen: look at it. A trial ends after "
        "{timeout_s} seconds if no picture has been chosen.",
        "instructions_cant_tell": "If you cannot tell which picture is meant, click "
        '"Can\'t tell".',
        "instructions_practice_one": "You will start with {n} practice example.",
        "instructions_practice_many": "You will start with {n} practice examples.",
        # rating questions and slider ends
        "adequacy_question": ADEQUACY_QUESTION,
        "fluency_question": FLUENCY_QUESTION,
        "adequacy_label_low": "not clear",
        "adequacy_label_high": "very clear",
        "fluency_label_low": "not fluent",
        "fluency_label_high": "very fluent",
        # experiment.js
        "continue": "Continue",
        "space_hint": "(or press the space bar)",
        "start": "Start",
        "next": "Next",
        "move_sliders": "Move both sliders to go on.",
        "ready": "Click Start or press the space bar when you are ready.",
        "show_pictures": "Show pictures",
        "cant_tell": "Can't tell",
        "picture_label": "picture {n}",
        "sound_failed": "The sound could not be played.",
        "feedback_correct": "Correct.",
        "feedback_timeout": "Too slow: please answer a little faster.",
        "feedback_cant_tell": "This description was meant to be clear enough.",
        "feedback_wrong": "That was not the picture meant.",
        "offline_list": "Offline mode: the results are saved as a file at the end. "
        "List: ",
        "practice_over": "The practice is over. The experiment itself starts now; "
        "it works in the same way.",
        "break": "Time for a short break. You have done {done} of {total} trials.",
        "break_continue": "Continue when you are ready.",
        "progress_practice": "Practice {n} of {total}",
        "progress_trial": "Trial {n} of {total}",
        "resume": "Welcome back. You have answered {done} of {total} trials; you "
        "will continue where you stopped.",
        "storage_unavailable": "Your browser does not let this page store data; "
        "please do not reload it.",
        "waiting_server": "Waiting for the server\u2026 (your answers are kept)",
        "saving_retry": "Saving\u2026 the server does not answer yet; your answers "
        "are kept and will be sent.",
        "finished": "Thank you! The experiment is finished.",
        "completion_code": "Your completion code:",
        "preparing": "Preparing the experiment\u2026",
        "cannot_start": "The experiment cannot start now (error {status}).",
        "unknown_list": "The server assigned an unknown list ({list}); please tell "
        "the experimenter.",
        "saving": "Saving your answers\u2026",
        "not_saved": "The answers could not be saved (error {status}).",
        "download": "Download the results",
        "new_session": "Start a new session",
        "discard_confirm": "The results have not been downloaded. Discard them?",
        "experimenter_download": "Experimenter: download the results file before "
        "starting a new session.",
        "unknown_list_offline": "Unknown list {list}; reload the page.",
        "offline_copy_needed": "This copy of the study is the one its server "
        "serves. To run the study without a server, open index.html in the offline "
        "folder of one list (offline/<list>/index.html).",
        "connecting": "Connecting to the server\u2026",
        "out_of_date": "This page is out of date: the experiment was rebuilt. Please "
        "reload the page.",
        # participant screens (consent, questionnaire, debrief, checks)
        "consent_agree": "I agree to take part",
        "consent_decline": "I do not agree",
        "declined": "You have chosen not to take part. No data have been recorded. "
        "You can close this page.",
        "questionnaire_submit": "Continue",
        "questionnaire_required": "Please answer every question marked *.",
        "questionnaire_number": "Please enter a number.",
        "answer_yes": "Yes",
        "answer_no": "No",
        "choose_placeholder": "(choose)",
        "debrief_continue": "Finish",
        "redirecting": "Returning you to the recruitment site\u2026 If nothing "
        "happens, follow this link:",
        "screen_too_small": "This experiment needs a window of at least {width} "
        "\u00d7 {height} pixels; yours is {w} \u00d7 {h}. Please enlarge the window "
        "or use a larger screen.",
        "screen_retry": "Check again",
        "fullscreen_ask": "The experiment works best in full screen.",
        "fullscreen_enter": "Go full screen",
        "fullscreen_skip": "Continue without full screen",
        "sound_check": "Sound check: press Play and type the word you hear.",
        "sound_play": "Play",
        "sound_wrong": "That was not the word. Check your sound and try again.",
        "sound_answer": "The word you heard",
        "answers_failed": "Your answers could not be saved (error {status}).",
        "session_download": "Download the session table",
        "failed": "Something went wrong: {error}",
        "damaged": "The study files are missing or damaged (stimuli.js). Please "
        "tell the experimenter.",
        "study_full": "This study is full and takes no more participants. Thank you "
        "for your interest.",
        "place_returned": "This place was returned to the study, so no more answers "
        "can be recorded for it. Thank you for your time.",
        "consent_needed": "This study records answers only from participants who "
        "agreed to take part on its consent page. Please open the study again from "
        "the link you were given and read the consent page.",
        "participant_needed": "This study needs your participant ID: please open it "
        "with the link you were given.",
        "already_completed": "You have already completed this study: each person "
        "takes part once. Thank you for your help.",
        "already_started": "You have already started this study. Please continue in "
        "the browser and on the device where you began; if you cannot, contact the "
        "researcher named on the consent page.",
        "too_many_sessions": "Too many sessions were started from your network; "
        "please try again in {seconds} seconds.",
    },
    "ja": {
        "html_noscript": "この実験にはJavaScriptが必要です。JavaScriptを有効にして、"
        "ページを再読み込みしてください。",
        "html_loading": "読み込み中\u2026",
        "instructions_rating_intro": "この実験では、絵についての説明を読んでいただき"
        "ます。各画面には絵の一覧と、そのうちの一つ（赤い枠で示された目標）の説明が"
        "表示されます。説明には人が書いたものと、コンピュータのプログラムが作った"
        "ものがあります。",
        "instructions_rating_sliders": "各説明について、スライダーを動かして二つの"
        "質問に答えてください。右に寄せるほど良い評価、左に寄せるほど悪い評価です。"
        "数字はありません。範囲全体を自由に使ってください。",
        "instructions_together": "各試行では、絵の一覧とそのうちの一つについての"
        "説明が同時に表示されます。指されていると思う絵を、できるだけ速く正確に"
        "クリックしてください。",
        "instructions_read_first": "各試行では、まず一覧の中の一つの絵についての"
        "説明が表示されます。読み終えたら「絵を表示」をクリックする（またはスペース"
        "キーを押す）と一覧が表示されますので、指されていると思う絵を、できるだけ"
        "速く正確にクリックしてください。",
        "instructions_spoken": "各試行では、絵の一覧が表示され、そのうちの一つに"
        "ついての説明が合成音声で読み上げられます（ヘッドホンをお使いください）。"
        "指されていると思う絵を、できるだけ速く正確にクリックしてください。読み上げ"
        "が終わる前にクリックしてもかまいません。",
        "instructions_trial_start": "各試行は、「開始」をクリックするかスペースキー"
        "を押して、ご自分で始めてください。短いビープ音が鳴り、画面の中央に十字"
        "（+）が表示されますので、それを見てください。{timeout_s}秒以内に絵が選ば"
        "れないと、その試行は終了します。",
        "instructions_cant_tell": "どの絵が指されているかわからない場合は、"
        "「わからない」をクリックしてください。",
        "instructions_practice_one": "はじめに{n}問の練習があります。",
        "instructions_practice_many": "はじめに{n}問の練習があります。",
        "adequacy_question": "この説明はどのくらい明確ですか。同じ絵の一覧を見て"
        "いるが、どの絵が目標かを知らない人を想像してください。その人はこの説明を"
        "もとに、どのくらい簡単に目標を見つけられるでしょうか。",
        "fluency_question": "この説明はどのくらい自然ですか。ここでは、説明の文が"
        "どのくらい読みやすいかを判断してください。明快で自然な日本語ですか。",
        "adequacy_label_low": "明確でない",
        "adequacy_label_high": "とても明確",
        "fluency_label_low": "自然でない",
        "fluency_label_high": "とても自然",
        "continue": "続ける",
        "space_hint": "（またはスペースキーを押す）",
        "start": "開始",
        "next": "次へ",
        "move_sliders": "先に進むには両方のスライダーを動かしてください。",
        "ready": "準備ができたら「開始」をクリックするか、スペースキーを押して"
        "ください。",
        "show_pictures": "絵を表示",
        "cant_tell": "わからない",
        "picture_label": "絵 {n}",
        "sound_failed": "音声を再生できませんでした。",
        "feedback_correct": "正解です。",
        "feedback_timeout": "時間切れです。もう少し速く答えてください。",
        "feedback_cant_tell": "この説明は十分に明確なはずでした。",
        "feedback_wrong": "指されていたのはその絵ではありません。",
        "offline_list": "オフラインモード：結果は最後にファイルとして保存されます。"
        "リスト：",
        "practice_over": "練習は終わりです。ここから本番が始まります。進め方は同じ"
        "です。",
        "break": "少し休憩してください。{total}試行のうち{done}試行が終わりました。",
        "break_continue": "準備ができたら続けてください。",
        "progress_practice": "練習 {n} / {total}",
        "progress_trial": "試行 {n} / {total}",
        "resume": "おかえりなさい。{total}試行のうち{done}試行に回答済みです。"
        "中断したところから続けます。",
        "storage_unavailable": "お使いのブラウザではこのページがデータを保存でき"
        "ません。ページを再読み込みしないでください。",
        "waiting_server": "サーバーの応答を待っています\u2026（回答は保持されて"
        "います）",
        "saving_retry": "保存中\u2026 サーバーがまだ応答しません。回答は保持され、"
        "後で送信されます。",
        "finished": "ありがとうございました。実験は終了です。",
        "completion_code": "完了コード：",
        "preparing": "実験を準備しています\u2026",
        "cannot_start": "現在、実験を開始できません（エラー {status}）。",
        "unknown_list": "サーバーが不明なリスト（{list}）を割り当てました。実験者に"
        "お知らせください。",
        "saving": "回答を保存しています\u2026",
        "not_saved": "回答を保存できませんでした（エラー {status}）。",
        "download": "結果をダウンロード",
        "new_session": "新しいセッションを開始",
        "discard_confirm": "結果はまだダウンロードされていません。破棄しますか？",
        "experimenter_download": "実験者の方へ：新しいセッションを始める前に、"
        "結果のファイルをダウンロードしてください。",
        "unknown_list_offline": "不明なリスト {list} です。ページを再読み込みして"
        "ください。",
        "offline_copy_needed": "これはサーバーが配信する実験のコピーです。サーバー"
        "なしで実験を行うには、リストごとのオフライン用フォルダーにあるページを"
        "開いてください。",
        "connecting": "サーバーに接続しています\u2026",
        "out_of_date": "このページは古くなっています（実験が作り直されました）。"
        "ページを再読み込みしてください。",
        "consent_agree": "参加に同意します",
        "consent_decline": "同意しません",
        "declined": "参加しないことを選ばれました。データは一切記録されていません。"
        "このページを閉じてください。",
        "questionnaire_submit": "続ける",
        "questionnaire_required": "＊の付いた質問にはすべて答えてください。",
        "questionnaire_number": "数字を入力してください。",
        "answer_yes": "はい",
        "answer_no": "いいえ",
        "choose_placeholder": "（選択）",
        "debrief_continue": "終了",
        "redirecting": "募集サイトに戻ります\u2026 移動しない場合は、次のリンクを"
        "開いてください：",
        "screen_too_small": "この実験には幅{width}×高さ{height}ピクセル以上の"
        "ウィンドウが必要です（現在は{w}×{h}）。ウィンドウを広げるか、大きな画面を"
        "お使いください。",
        "screen_retry": "もう一度確認",
        "fullscreen_ask": "この実験は全画面表示で行うのが最適です。",
        "fullscreen_enter": "全画面表示にする",
        "fullscreen_skip": "全画面表示にせずに続ける",
        "sound_check": "音声の確認：「再生」を押して、聞こえた単語を入力してください。",
        "sound_play": "再生",
        "sound_wrong": "単語が違います。音声の設定を確認して、もう一度お試しください。",
        "sound_answer": "聞こえた単語",
        "answers_failed": "回答を保存できませんでした（エラー {status}）。",
        "session_download": "セッション表をダウンロード",
        "failed": "問題が発生しました：{error}",
        "damaged": "実験のファイルがないか、壊れています（stimuli.js）。実験者に"
        "お知らせください。",
        "study_full": (
            "この実験は定員に達したため、これ以上参加者を受け付けていませ"
            "ん。ご関心をお寄せいただき、ありがとうございました。"
        ),
        "place_returned": (
            "この参加枠は返却されたため、これ以上回答を記録できません。お"
            "時間をいただき、ありがとうございました。"
        ),
        "consent_needed": (
            "この実験は、同意ページで参加に同意した方の回答のみを記録しま"
            "す。お知らせしたリンクから実験を開き直し、同意ページをお読み"
            "ください。"
        ),
        "participant_needed": (
            "この実験には参加者IDが必要です。お知らせしたリンクから開いてください。"
        ),
        "already_completed": (
            "この実験にはすでに参加済みです。参加はお一人につき一回です。"
            "ご協力ありがとうございました。"
        ),
        "already_started": (
            "この実験はすでに開始されています。開始したときと同じブラウザ"
            "と端末で続けてください。それができない場合は、同意ページに記"
            "載の研究者にご連絡ください。"
        ),
        "too_many_sessions": (
            "お使いのネットワークから開始されたセッションが多すぎます。{"
            "seconds}秒後にもう一度お試しください。"
        ),
    },
}


#: The strings of the situated identification trial (seed 000 §5.1,
#: :mod:`stecflow.studies.situated`), by language, kept apart from
#: :data:`UI_STRINGS` so that the rating and identification studies' files do not
#: change. ``dont_know`` is the seed's "I don't know" button; its Japanese
#: わからない is stecflow's translation, as for ``cant_tell`` (the seed quotes the
#: button only in English). The situated study document carries both tables
#: merged in ``texts.ui``; ``experiment.strings`` overrides keys of both there
#: (:func:`stecflow.studies.situated.make_situated_study_files` checks the keys
#: of this table; :class:`StudySettings` those of :data:`UI_STRINGS`).
SITUATED_UI_STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "instructions_situated": "In each trial you first watch a short clip of "
        "a shared work area where two people solve a Tangram puzzle together: the "
        "pieces and the mouse cursor move as they did, and what was said appears "
        "beside the clip. Then you read what the solver said next, with a "
        "referring expression in red. Click the piece it refers to, on the board "
        "or with its numbered button.",
        "instructions_situated_replay": "You can replay the clip as many times as "
        "you like before answering. If you cannot tell which piece is meant, click "
        "\u201cI don't know\u201d.",
        "play": "Play the clip",
        "replay": "Replay the clip",
        "playing": "Playing\u2026",
        "dont_know": "I don't know",
        "piece_label": "piece {n}",
        "speaker_solver": "Solver",
        "speaker_operator": "Operator",
        "media_failed": "The clip could not be played.",
    },
    "ja": {
        "instructions_situated": "各試行では、まず二人がタングラムパズルを一緒に"
        "解いている共有作業画面の短い映像を見ていただきます。ピースとマウスカーソル"
        "は記録どおりに動き、話された内容が映像の横に表示されます。次に、指示者が"
        "その直後に話した発話が表示され、参照表現が赤で示されます。その表現が指して"
        "いるピースを、画面上で、または番号のボタンでクリックしてください。",
        "instructions_situated_replay": "回答する前に映像は何度でも再生できます。"
        "どのピースが指されているかわからない場合は、「わからない」をクリックして"
        "ください。",
        "play": "映像を再生",
        "replay": "もう一度再生",
        "playing": "再生中\u2026",
        "dont_know": "わからない",
        "piece_label": "ピース {n}",
        "speaker_solver": "指示者",
        "speaker_operator": "作業者",
        "media_failed": "映像を再生できませんでした。",
    },
}


#: The page title of a text-rating or text-preference study that sets none.
TEXT_TITLES = {"en": "Judging texts", "ja": "文章の評価"}

#: The strings of the text-rating and text-preference trials
#: (:mod:`stecflow.studies.text`), by language, kept apart from
#: :data:`UI_STRINGS` (as :data:`SITUATED_UI_STRINGS`) so that the files of the
#: REG studies do not change. The Japanese strings are stecflow's translation.
#: A text study's document carries this table merged with :data:`UI_STRINGS` in
#: ``texts.ui``; ``experiment.strings`` overrides keys of both there
#: (:func:`stecflow.studies.text.text_settings` checks the keys of this table).
#: The criteria's questions and anchors are the organiser's own (config
#: ``studies[].criteria``) and are not translated.
TEXT_UI_STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "instructions_text_rating": "In this experiment you will read texts, each "
        "produced from an input: a text, a small table of facts or a short "
        "document, shown above it. Some texts were written by people, others were "
        "produced by computer programs. Answer every question below each text.",
        "instructions_text_scales": "Some questions are answered by choosing one "
        "point of a scale, others by moving a slider between its two labelled "
        "ends: the slider starts in the middle and must be moved before you can "
        "go on.",
        "instructions_text_preference": "In this experiment you will see two texts "
        "produced from the same input, which is shown above them, side by side. "
        "Read both and choose the one that answers the question better.",
        "instructions_text_tie": "If you cannot choose between them, click "
        "\u201cNo preference\u201d.",
        "input_heading": "Input",
        "output_heading": "Text",
        "text_left": "Text A",
        "text_right": "Text B",
        "choose_left": "A is better",
        "choose_right": "B is better",
        "choose_tie": "No preference",
        "triple_subject": "Subject",
        "triple_predicate": "Predicate",
        "triple_object": "Object",
        "field_name": "Field",
        "field_value": "Value",
        "likert_point": "{n} of {points}",
        "answer_all": "Answer every question to go on.",
        "choose_one": "Choose one of the answers to go on.",
    },
    "ja": {
        "instructions_text_rating": "この実験では、入力（文章、事実の小さな表、"
        "または短い文書）から作られた文章を読んでいただきます。入力は文章の上に表示"
        "されます。文章には人が書いたものと、コンピュータのプログラムが作ったものが"
        "あります。各文章の下にあるすべての質問に答えてください。",
        "instructions_text_scales": "質問には、尺度の中から一つを選んで答えるもの"
        "と、両端に説明のあるスライダーを動かして答えるものがあります。スライダーは"
        "中央から始まり、動かさないと先に進めません。",
        "instructions_text_preference": "この実験では、同じ入力から作られた二つの"
        "文章が左右に並べて表示されます。入力はその上に表示されます。両方を読み、"
        "質問によりよく当てはまる方を選んでください。",
        "instructions_text_tie": "どちらとも決められない場合は、「どちらとも"
        "言えない」をクリックしてください。",
        "input_heading": "入力",
        "output_heading": "文章",
        "text_left": "文章A",
        "text_right": "文章B",
        "choose_left": "Aの方がよい",
        "choose_right": "Bの方がよい",
        "choose_tie": "どちらとも言えない",
        "triple_subject": "主語",
        "triple_predicate": "述語",
        "triple_object": "目的語",
        "field_name": "項目",
        "field_value": "値",
        "likert_point": "{points}段階の{n}",
        "answer_all": "先に進むにはすべての質問に答えてください。",
        "choose_one": "先に進むにはいずれかを選んでください。",
    },
}


#: The link's parameters read for each ID sent to the server (contract C1), in
#: order of preference: Prolific's ``PROLIFIC_PID``, ``STUDY_ID`` and
#: ``SESSION_ID``, MTurk's ``workerId``, ``assignmentId``; a study adds its own
#: names first with ``experiment.url_params``.
URL_PARAMS: dict[str, list[str]] = {
    "participant": ["participant", "PROLIFIC_PID", "pid", "workerId"],
    "study_id": ["study_id", "STUDY_ID", "hitId"],
    "external_session": ["session_id", "SESSION_ID", "assignmentId"],
}

#: Fields added after the English study files were fixed: left out of the study
#: document while they keep their defaults.
_NEWER_FIELDS = (
    "consent",
    "questionnaire",
    "questionnaire_at",
    "debrief",
    "completion_url",
    "decline_url",
    "url_params",
    "min_width",
    "min_height",
    "check_window",
    "fullscreen",
    "sound_check",
    "messages",
)


def read_catalogue(
    path: str, *tables: Mapping[str, Mapping[str, str]]
) -> tuple[str, dict[str, str]]:
    """The language tag and strings of a message catalogue file, checked.

    The file (YAML) has ``language`` (e.g. ``pt`` or ``pt-BR``) and ``strings``:
    key -> text, with every key of the English table of each of *tables* (the
    other tables' keys may be there too) and the same ``{name}`` fields as the
    English; unknown keys are refused.

    Raises
    ------
    ConfigError
        Naming the file, the line (when known) and the key.
    """
    import yaml

    where = "experiment.messages"
    try:
        text = open(path, encoding="utf-8").read()  # noqa: SIM115
    except OSError as error:
        raise ConfigError(
            f"cannot read the file {path}: {error.strerror}", field=where
        ) from None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise ConfigError(
            f"not valid YAML: {getattr(error, 'problem', error)}",
            file=path,
            line=mark.line + 1 if mark else None,
        ) from None
    if not isinstance(root, yaml.MappingNode):
        raise ConfigError("must be a mapping with language and strings", file=path)
    top = {k.value: v for k, v in root.value}
    language = top.get("language")
    if not isinstance(language, yaml.ScalarNode) or not re.fullmatch(
        r"[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*", language.value
    ):
        raise ConfigError(
            "must be a language tag such as pt or pt-BR",
            file=path,
            line=(language.start_mark.line + 1) if language is not None else None,
            field="language",
        )
    node = top.get("strings")
    if not isinstance(node, yaml.MappingNode):
        raise ConfigError("must be a mapping of key: text", file=path, field="strings")
    english: dict[str, str] = {}
    for table in tables:
        english.update(table["en"])
    known = {**UI_STRINGS["en"], **SITUATED_UI_STRINGS["en"], **TEXT_UI_STRINGS["en"]}
    given: dict[str, str] = {}
    for key_node, value_node in node.value:
        key, line = key_node.value, key_node.start_mark.line + 1
        if key not in known:
            raise ConfigError(
                "unknown interface string", file=path, line=line, field=key
            )
        if not isinstance(value_node, yaml.ScalarNode) or value_node.tag.endswith(
            ("null", "bool", "int", "float")
        ):
            raise ConfigError("must be a text", file=path, line=line, field=key)
        if placeholders(value_node.value) != placeholders(known[key]):
            wanted = ", ".join(sorted(placeholders(known[key]))) or "none"
            raise ConfigError(
                f"must have the fields {{...}} of the original: {wanted}",
                file=path,
                line=line,
                field=key,
            )
        given[key] = value_node.value
    missing = [key for key in english if key not in given]
    if missing:
        raise ConfigError(
            f"{len(missing)} interface string(s) missing: {', '.join(missing)}",
            file=path,
            field="strings",
        )
    return language.value, given


def placeholders(text: str) -> frozenset[str]:
    """The ``{name}`` fields of an interface string.

    Examples
    --------
    >>> sorted(placeholders("Trial {n} of {total}"))
    ['n', 'total']
    """
    return frozenset(re.findall(r"\{(\w+)\}", text))


@dataclass(frozen=True)
class StudySettings:
    """Presentation settings of a study (config ``studies[].experiment``).

    Attributes
    ----------
    title : str
        Shown at the top of the page and in the browser tab.
    fixation_ms : int
        Identification: how long the fixation cross is shown (seed 001: 1000 ms).
    delay_ms : int
        Identification: ``spoken``: from display onset to the start of the voice
        (seed 001: 500 ms); ``together`` and ``read_first``: blank screen between
        the fixation cross and the description.
    timeout_ms : int
        Identification: a trial times out this long after the pictures appear
        (seeds 001 and 003: 15 000 ms).
    reading_timeout_ms : int or None
        ``read_first``: the pictures are called up automatically after this long
        (None: no limit, as in seed 003).
    hide_description : bool
        ``read_first``: remove the description when the pictures appear, so that
        reading and identification are separate (seed 003).
    warning_beep : bool
        Identification: play the warning beep at the start of every trial.
    beep_hz, beep_ms : int
        Pitch and length of the beep.
    feedback_ms : int
        Identification: how long practice feedback ("correct" or not) is shown; 0
        gives none.
    break_every : int
        Offer a break after every this many test trials (0: never).
    cant_tell : bool
        Identification: add a "can't tell" button (seed 000).
    require_slider_touch : bool
        Rating: the participant must move or click each slider before going on.
    completion_code : str or None
        A fixed code shown at the end (e.g. a crowd-sourcing platform's); None lets
        the server issue a random code per session (offline: no code).
    voice : str
        espeak-ng voice of the spoken variant (``espeak-ng --voices``).
    speech_wpm : int
        Speaking rate in words per minute.
    cell_px : int
        Size of a grid cell on screen, in CSS pixels.
    instructions : str or None
        Replaces the default instructions (paragraphs separated by blank lines).
    language : {"en", "ja"}
        Language of every string the participant sees (:data:`UI_STRINGS`). The
        instructions given here and the descriptions are the study's own and are
        not translated; the default title is (:data:`DEFAULT_TITLES`: a title
        equal to the English default becomes the language's). Seed 000 ran in
        Japanese.
    strings : mapping of str to str, optional
        Replaces single interface strings by key (:data:`UI_STRINGS`), in any
        language; a replacement must have the same ``{name}`` fields.
    consent, debrief : str or None
        Markdown or plain-text file (path from the campaign folder) shown before
        the first screen (consent: agree or decline; declining sends nothing) and
        after the last trial (debrief). Read and checked when the study is built
        (:mod:`stecflow.studies.screens`).
    questionnaire : str or None
        YAML file of questionnaire fields (:func:`stecflow.studies.screens.
        read_questionnaire`); shown after consent (``questionnaire_at: start``)
        or after the last trial (``end``).
    completion_url, decline_url : str or None
        Where the page sends the participant after the debrief (``{code}`` is
        replaced by the completion code, e.g. Prolific's
        ``https://app.prolific.com/submissions/complete?cc={code}``) or after
        declining consent.
    url_params : mapping, optional
        Names of the link's parameters holding ``participant``, ``study_id`` and
        ``external_session`` (a name or a list of names; defaults:
        :data:`URL_PARAMS`, Prolific's among them).
    min_width, min_height : int or None
        Smallest window (CSS pixels) the study runs in; the participant is told
        before starting and cannot go on in a smaller window.
    check_window : bool
        Check the window size before starting; without ``min_width`` and
        ``min_height``, the smallest window of the trial kind's layout (its
        :attr:`~stecflow.studykinds.base.StudyKind.min_window`).
    fullscreen : bool
        Ask for full screen before the first screen.
    sound_check : str or None
        A word spoken (espeak-ng) before the start, which the participant must
        type back; for spoken studies.
    messages : str or None
        A YAML catalogue of every interface string in another language
        (:func:`read_catalogue`): ``language`` (a tag such as ``pt``) and
        ``strings`` with every key of :data:`UI_STRINGS` (and of the trial kind's
        own table), each with the ``{name}`` fields of the English original.
        ``experiment.strings`` still overrides single strings.
    """

    title: str = DEFAULT_TITLES["en"]
    fixation_ms: int = 1000
    delay_ms: int = 500
    timeout_ms: int = 15000
    reading_timeout_ms: int | None = None
    hide_description: bool = True
    warning_beep: bool = True
    beep_hz: int = 880
    beep_ms: int = 150
    feedback_ms: int = 800
    break_every: int = 20
    cant_tell: bool = False
    require_slider_touch: bool = True
    completion_code: str | None = None
    voice: str = "en-us"
    speech_wpm: int = 150
    cell_px: int = 120
    instructions: str | None = None
    language: str = "en"
    strings: Mapping[str, str] | None = None
    consent: str | None = None
    questionnaire: str | None = None
    questionnaire_at: str = "start"
    debrief: str | None = None
    completion_url: str | None = None
    decline_url: str | None = None
    url_params: Mapping[str, Any] | None = None
    min_width: int | None = None
    min_height: int | None = None
    check_window: bool = False
    fullscreen: bool = False
    sound_check: str | None = None
    messages: str | None = None

    def __post_init__(self) -> None:
        limits = {
            "fixation_ms": (0, 10_000),
            "delay_ms": (0, 10_000),
            "timeout_ms": (100, 600_000),
            "beep_hz": (100, 5_000),
            "beep_ms": (10, 2_000),
            "feedback_ms": (0, 10_000),
            "break_every": (0, 10_000),
            "speech_wpm": (60, 450),
            "cell_px": (40, 400),
        }
        for name, (low, high) in limits.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"must be an integer, got {value!r}", field=name)
            if not low <= value <= high:
                raise ConfigError(
                    f"must be between {low} and {high}, got {value}", field=name
                )
        if self.reading_timeout_ms is not None and (
            isinstance(self.reading_timeout_ms, bool)
            or not isinstance(self.reading_timeout_ms, int)
            or not 100 <= self.reading_timeout_ms <= 600_000
        ):
            raise ConfigError(
                f"must be null or an integer from 100 to 600000, got "
                f"{self.reading_timeout_ms!r}",
                field="reading_timeout_ms",
            )
        for name in (
            "hide_description",
            "warning_beep",
            "cant_tell",
            "require_slider_touch",
        ):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(
                    f"must be true or false, got {getattr(self, name)!r}", field=name
                )
        if not isinstance(self.title, str) or not self.title.strip():
            raise ConfigError("must be a non-empty string", field="title")
        if self.completion_code is not None and not re.fullmatch(
            r"[A-Za-z0-9_-]{1,64}", str(self.completion_code)
        ):
            raise ConfigError(
                "must be null or 1-64 letters, digits, '-' or '_'",
                field="completion_code",
            )
        if not re.fullmatch(r"[A-Za-z0-9_+-]{1,40}", str(self.voice)):
            raise ConfigError(
                f"{self.voice!r} is not an espeak-ng voice name", field="voice"
            )
        if self.instructions is not None and not isinstance(self.instructions, str):
            raise ConfigError("must be null or a string", field="instructions")
        if self.language not in LANGUAGES:
            raise ConfigError(
                f"must be one of {', '.join(LANGUAGES)}, got {self.language!r}",
                field="language",
            )
        if self.strings is not None:
            if not isinstance(self.strings, Mapping):
                raise ConfigError("must be null or a mapping", field="strings")
            english = UI_STRINGS["en"]
            for key, value in self.strings.items():
                if key not in english:
                    raise ConfigError(
                        "unknown interface string; see UI_STRINGS in"
                        " stecflow.studies.settings for the keys",
                        field=f"strings.{key}",
                    )
                if not isinstance(value, str):
                    raise ConfigError("must be a string", field=f"strings.{key}")
                if placeholders(value) != placeholders(english[key]):
                    wanted = ", ".join(sorted(placeholders(english[key]))) or "none"
                    raise ConfigError(
                        f"must have the fields {{...}} of the original: {wanted}",
                        field=f"strings.{key}",
                    )
            object.__setattr__(self, "strings", dict(sorted(self.strings.items())))
        if self.title == DEFAULT_TITLES["en"]:
            object.__setattr__(self, "title", DEFAULT_TITLES[self.language])
        for name in ("consent", "questionnaire", "debrief"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ConfigError("must be null or a file path", field=name)
        if self.questionnaire_at not in ("start", "end"):
            raise ConfigError(
                f"must be start or end, got {self.questionnaire_at!r}",
                field="questionnaire_at",
            )
        for name in ("completion_url", "decline_url"):
            value = getattr(self, name)
            if value is not None and (
                not isinstance(value, str)
                or not re.fullmatch(r"https?://[^\s<>\"]+", value)
            ):
                raise ConfigError(
                    f"must be null or an http(s) URL, got {value!r}", field=name
                )
        for name in ("min_width", "min_height"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool)
                or not isinstance(value, int)
                or not 200 <= value <= 4000
            ):
                raise ConfigError(
                    f"must be null or an integer from 200 to 4000, got {value!r}",
                    field=name,
                )
        if not isinstance(self.check_window, bool):
            raise ConfigError(
                f"must be true or false, got {self.check_window!r}",
                field="check_window",
            )
        if not isinstance(self.fullscreen, bool):
            raise ConfigError(
                f"must be true or false, got {self.fullscreen!r}", field="fullscreen"
            )
        if self.messages is not None and (
            not isinstance(self.messages, str) or not self.messages.strip()
        ):
            raise ConfigError("must be null or a file path", field="messages")
        if self.sound_check is not None and not re.fullmatch(
            r"[^\s]{1,40}", str(self.sound_check)
        ):
            raise ConfigError(
                "must be null or one word (no spaces)", field="sound_check"
            )
        if self.url_params is not None:
            if not isinstance(self.url_params, Mapping):
                raise ConfigError("must be null or a mapping", field="url_params")
            clean: dict[str, list[str]] = {}
            for key, value in self.url_params.items():
                if key not in URL_PARAMS:
                    raise ConfigError(
                        f"unknown; known: {', '.join(URL_PARAMS)}",
                        field=f"url_params.{key}",
                    )
                names = [value] if isinstance(value, str) else value
                if not isinstance(names, list) or not all(
                    isinstance(n, str) and re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", n)
                    for n in names
                ):
                    raise ConfigError(
                        "must be a parameter name or a list of them",
                        field=f"url_params.{key}",
                    )
                clean[key] = list(names)
            object.__setattr__(self, "url_params", dict(sorted(clean.items())))

    def url_param_names(self) -> dict[str, list[str]]:
        """The link's parameter names per ID, the study's own first."""
        given = dict(self.url_params or {})
        return {
            key: list(dict.fromkeys([*given.get(key, []), *names]))
            for key, names in URL_PARAMS.items()
        }

    def catalogue(self, *tables: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
        """The strings of ``experiment.messages`` ({} without one), checked.

        Every key of :data:`UI_STRINGS` and of each of *tables* (a trial kind's
        own strings, by language) must be there, with the English ``{name}``
        fields.
        """
        if self.messages is None:
            return {}
        return read_catalogue(self.messages, UI_STRINGS, *tables)[1]

    def ui_strings(self) -> dict[str, str]:
        """Every interface string in this study's language, with its overrides.

        Examples
        --------
        >>> StudySettings(language="ja").ui_strings()["cant_tell"]
        'わからない'
        >>> StudySettings(strings={"cant_tell": "I don't know"}).ui_strings()[
        ...     "cant_tell"]
        "I don't know"
        """
        return {
            **UI_STRINGS[self.language],
            **self.catalogue(),
            **(self.strings or {}),
        }

    @property
    def default_interface(self) -> bool:
        """True for English without overrides: the output stecflow always made."""
        return self.language == "en" and not self.strings and not self.messages

    @classmethod
    def from_mapping(
        cls, data: Mapping[str, Any] | None, *, where: str = "experiment"
    ) -> StudySettings:
        """Build settings from a config mapping, rejecting unknown keys.

        Parameters
        ----------
        data : mapping or None
            Key -> value; missing keys take their defaults.
        where : str, default "experiment"
            The key path named in error messages.

        Returns
        -------
        StudySettings

        Raises
        ------
        ConfigError
            For an unknown key or a value out of range (the field names the key).

        Examples
        --------
        >>> StudySettings.from_mapping({"fixation_ms": 200}).fixation_ms
        200
        >>> StudySettings.from_mapping({"fixation": 200})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        stecflow.core.errors.ConfigError: experiment.fixation: unknown key; ...
        """
        data = dict(data or {})
        known = {f.name for f in fields(cls)}
        for key in sorted(data):
            if key not in known:
                raise ConfigError(
                    f"unknown key; known keys are {', '.join(sorted(known))}",
                    field=f"{where}.{key}",
                )
        try:
            return cls(**data)
        except ConfigError as error:
            raise ConfigError(error.message, field=f"{where}.{error.field}") from None

    def to_dict(self) -> dict[str, Any]:
        """Return the settings as plain JSON-ready data.

        ``language`` and ``strings`` are left out while they have their defaults,
        so that the study files of an English study are those stecflow made
        before the interface could be translated.
        """
        data = asdict(self)
        if self.language == "en":
            del data["language"]
        if not self.strings:
            del data["strings"]
        for name in _NEWER_FIELDS:
            if data[name] == getattr(StudySettings, name):
                del data[name]
        if "url_params" in data:
            data["url_params"] = self.url_param_names()
        return data


def paradigm_settings(
    settings: StudySettings | Mapping[str, Any] | None,
    strings: Mapping[str, Mapping[str, str]],
    titles: Mapping[str, str],
) -> tuple[StudySettings, dict[str, str]]:
    """A study's settings and its overrides of a paradigm's own strings.

    For a study paradigm with interface strings of its own besides
    :data:`UI_STRINGS` (the situated trial, the text trials): the keys of
    ``experiment.strings`` that are the paradigm's (*strings*, by language) are
    checked here (a string, with the ``{name}`` fields of the English original)
    and returned apart; the rest stay in the settings. A study that sets no title
    gets *titles* in its language.

    Raises
    ------
    ConfigError
        For an unknown key or a bad value (``experiment.<key>``,
        ``experiment.strings.<key>``).
    """
    if isinstance(settings, StudySettings):
        if settings.title == DEFAULT_TITLES[settings.language]:
            settings = replace(settings, title=titles[settings.language])
        return settings, {}
    data = dict(settings or {})
    given = data.get("strings")
    own: dict[str, str] = {}
    if isinstance(given, Mapping):
        english = strings["en"]
        rest = {}
        for key, value in given.items():
            if key not in english:
                rest[key] = value
                continue
            if not isinstance(value, str):
                raise ConfigError("must be a string", field=f"experiment.strings.{key}")
            if placeholders(value) != placeholders(english[key]):
                wanted = ", ".join(sorted(placeholders(english[key]))) or "none"
                raise ConfigError(
                    f"must have the fields {{...}} of the original: {wanted}",
                    field=f"experiment.strings.{key}",
                )
            own[key] = value
        data["strings"] = rest or None
    if not data.get("title"):
        language = data.get("language", "en")
        data["title"] = titles.get(language, titles["en"])
    return StudySettings.from_mapping(data), dict(sorted(own.items()))
