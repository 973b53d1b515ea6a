"""Every string the participant sees, in English and Japanese, and their catalogues.

Owns the questions of the rating task (:data:`ADEQUACY_QUESTION`,
:data:`FLUENCY_QUESTION`), the interface languages (:data:`LANGUAGES`), the
default page titles (:data:`DEFAULT_TITLES`, :data:`SITUATED_TITLES`,
:data:`TEXT_TITLES`), the interface strings (:data:`UI_STRINGS`, selected by
``experiment.language`` and overridden one by one by ``experiment.strings``;
:data:`SITUATED_UI_STRINGS` for the situated identification trial of seed 000,
:data:`TEXT_UI_STRINGS` for the text-rating and text-preference trials of
:mod:`stecflow.studies.text`), and the reading of a message catalogue file
(:func:`read_catalogue`, :func:`placeholders`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from stecflow.core.errors import ConfigError

__all__ = [
    "ADEQUACY_QUESTION",
    "DEFAULT_TITLES",
    "FLUENCY_QUESTION",
    "LANGUAGES",
    "SITUATED_TITLES",
    "SITUATED_UI_STRINGS",
    "TEXT_TITLES",
    "TEXT_UI_STRINGS",
    "UI_STRINGS",
    "placeholders",
    "read_catalogue",
]

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
#: :mod:`stecflow.studykinds.situated_identification.stimuli`), by language, kept
#: apart from
#: :data:`UI_STRINGS` so that the rating and identification studies' files do not
#: change. ``dont_know`` is the seed's "I don't know" button; its Japanese
#: わからない is stecflow's translation, as for ``cant_tell`` (the seed quotes the
#: button only in English). The situated study document carries both tables
#: merged in ``texts.ui``; ``experiment.strings`` overrides keys of both there
#: (:func:`stecflow.studykinds.situated_identification.stimuli.
#: make_situated_study_files` checks the keys
#: of this table; :class:`~stecflow.studies.settings.StudySettings` those of
#: :data:`UI_STRINGS`).
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
