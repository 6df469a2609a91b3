/*
 * The Neo4j dialect of Cypher that BloodHound users write.
 *
 * Derived from the openCypher grammar (Copyright (c) 2015-2023 "Neo Technology," Network Engine for
 * Objects in Lund AB, Apache License 2.0), in its form with the Neo4j extensions BloodHound queries
 * rely on (shortestPath / allShortestPaths inside MATCH, =~, EXISTS { }, pattern predicates).
 * Changes: whitespace and comments are skipped by the lexer instead of appearing as SP tokens (fewer
 * tokens, a faster parse in Python); a query is a plain sequence of clauses whose order the AST
 * builder checks (so a misplaced clause gets a message naming it); added CALL { } subqueries,
 * COUNT { } subqueries, map projections, label disjunction in WHERE (n:A|B); removed the legacy
 * START, LOAD CSV, schema commands, hints and {legacy} parameters.
 * Regenerate the parser with scripts in this folder (see regenerate.sh).
 */
grammar Cypher;

options { caseInsensitive = true; }

oC_Cypher : oC_RegularQuery ';'? EOF ;

oC_RegularQuery : oC_SingleQuery oC_Union* ;

oC_Union : UNION ALL? oC_SingleQuery ;

oC_SingleQuery : oC_Clause+ ;

oC_Clause
    : oC_Match
    | oC_Unwind
    | oC_SubqueryCall
    | oC_ProcedureCall
    | oC_With
    | oC_Return
    | oC_Create
    | oC_Merge
    | oC_Set
    | oC_Delete
    | oC_Remove
    | oC_Foreach
    ;

oC_Match : OPTIONAL? MATCH oC_Pattern oC_Where? ;

oC_Unwind : UNWIND oC_Expression AS oC_Variable ;

oC_SubqueryCall : CALL '{' oC_RegularQuery '}' ;

oC_ProcedureCall : CALL oC_ProcedureName ( '(' ( oC_Expression ( ',' oC_Expression )* )? ')' )? ( YIELD ( '*' | oC_YieldItems ) )? ;

oC_YieldItems : oC_YieldItem ( ',' oC_YieldItem )* oC_Where? ;

oC_YieldItem : ( oC_SymbolicName AS )? oC_Variable ;

oC_ProcedureName : oC_Namespace oC_SymbolicName ;

oC_With : WITH oC_ProjectionBody oC_Where? ;

oC_Return : RETURN oC_ProjectionBody ;

oC_ProjectionBody : DISTINCT? oC_ProjectionItems oC_Order? oC_Skip? oC_Limit? ;

oC_ProjectionItems
    : '*' ( ',' oC_ProjectionItem )*
    | oC_ProjectionItem ( ',' oC_ProjectionItem )*
    ;

oC_ProjectionItem : oC_Expression ( AS oC_Variable )? ;

oC_Order : ORDER BY oC_SortItem ( ',' oC_SortItem )* ;

oC_Skip : SKIP_ oC_Expression ;

oC_Limit : LIMIT oC_Expression ;

oC_SortItem : oC_Expression ( ASCENDING | ASC | DESCENDING | DESC )? ;

oC_Create : CREATE oC_Pattern ;

oC_Merge : MERGE oC_PatternPart oC_MergeAction* ;

oC_MergeAction : ON ( MATCH | CREATE ) oC_Set ;

oC_Set : SET oC_SetItem ( ',' oC_SetItem )* ;

oC_SetItem
    : oC_PropertyExpression '=' oC_Expression
    | oC_Variable '=' oC_Expression
    | oC_Variable '+=' oC_Expression
    | oC_Variable oC_NodeLabels
    ;

oC_Delete : DETACH? DELETE oC_Expression ( ',' oC_Expression )* ;

oC_Remove : REMOVE oC_RemoveItem ( ',' oC_RemoveItem )* ;

oC_RemoveItem : oC_Variable oC_NodeLabels | oC_PropertyExpression ;

oC_Foreach : FOREACH '(' oC_Variable IN oC_Expression '|' oC_Clause+ ')' ;

oC_Where : WHERE oC_Expression ;

oC_Pattern : oC_PatternPart ( ',' oC_PatternPart )* ;

oC_PatternPart : ( oC_Variable '=' )? oC_AnonymousPatternPart ;

oC_AnonymousPatternPart : oC_ShortestPathPattern | oC_PatternElement ;

oC_ShortestPathPattern
    : SHORTESTPATH '(' oC_PatternElement ')'
    | ALLSHORTESTPATHS '(' oC_PatternElement ')'
    ;

oC_PatternElement
    : oC_NodePattern oC_PatternElementChain*
    | '(' oC_PatternElement ')'
    ;

oC_RelationshipsPattern : oC_NodePattern oC_PatternElementChain+ ;

oC_NodePattern : '(' oC_Variable? oC_NodeLabels? oC_Properties? ')' ;

oC_PatternElementChain : oC_RelationshipPattern oC_NodePattern ;

oC_RelationshipPattern
    : '<' '-' oC_RelationshipDetail? '-' '>'
    | '<' '-' oC_RelationshipDetail? '-'
    | '-' oC_RelationshipDetail? '-' '>'
    | '-' oC_RelationshipDetail? '-'
    | '<' '--' '>'
    | '<' '--'
    | '--' '>'
    | '--'
    | '<-->'
    | '<--'
    | '-->'
    ;

oC_RelationshipDetail : '[' oC_Variable? oC_RelationshipTypes? oC_RangeLiteral? oC_Properties? ']' ;

oC_Properties : oC_MapLiteral | oC_Parameter ;

oC_RelationshipTypes : ':' oC_SchemaName ( '|' ':'? oC_SchemaName )* ;

oC_NodeLabels : oC_NodeLabel+ ;

oC_NodeLabel : ':' oC_SchemaName ( '|' oC_SchemaName )* ;

oC_RangeLiteral : '*' oC_IntegerLiteral? ( '..' oC_IntegerLiteral? )? ;

oC_PropertyExpression : oC_Atom oC_PropertyLookup+ ;

oC_Expression : oC_OrExpression ;

oC_OrExpression : oC_XorExpression ( OR oC_XorExpression )* ;

oC_XorExpression : oC_AndExpression ( XOR oC_AndExpression )* ;

oC_AndExpression : oC_NotExpression ( AND oC_NotExpression )* ;

oC_NotExpression : NOT* oC_ComparisonExpression ;

oC_ComparisonExpression : oC_StringListNullPredicateExpression oC_PartialComparisonExpression* ;

oC_PartialComparisonExpression : oC_ComparisonOperator oC_StringListNullPredicateExpression ;

oC_ComparisonOperator : '=' | '<>' | '!=' | '<' | '>' | '<=' | '>=' ;

oC_StringListNullPredicateExpression
    : oC_AddOrSubtractExpression ( oC_StringPredicateExpression | oC_ListPredicateExpression | oC_NullPredicateExpression )*
    ;

oC_StringPredicateExpression : oC_StringOperator oC_AddOrSubtractExpression ;

oC_StringOperator : '=~' | STARTS WITH | ENDS WITH | CONTAINS ;

oC_ListPredicateExpression : IN oC_AddOrSubtractExpression ;

oC_NullPredicateExpression : IS NOT? NULL ;

oC_AddOrSubtractExpression : oC_MultiplyDivideModuloExpression ( ( '+' | '-' ) oC_MultiplyDivideModuloExpression )* ;

oC_MultiplyDivideModuloExpression : oC_PowerOfExpression ( ( '*' | '/' | '%' ) oC_PowerOfExpression )* ;

oC_PowerOfExpression : oC_UnaryAddOrSubtractExpression ( '^' oC_UnaryAddOrSubtractExpression )* ;

oC_UnaryAddOrSubtractExpression : ( '+' | '-' )? oC_NonArithmeticOperatorExpression ;

oC_NonArithmeticOperatorExpression : oC_Atom ( oC_ListOperatorExpression | oC_PropertyLookup )* oC_NodeLabels? ;

oC_ListOperatorExpression
    : '[' oC_Expression ']'
    | '[' oC_Expression? '..' oC_Expression? ']'
    ;

oC_PropertyLookup : '.' oC_SchemaName ;

oC_Atom
    : oC_Literal
    | oC_Parameter
    | oC_CaseExpression
    | COUNT '(' '*' ')'
    | oC_ListComprehension
    | oC_PatternComprehension
    | oC_Reduce
    | oC_Quantifier
    | oC_ShortestPathPattern
    | oC_PatternPredicate
    | oC_ParenthesizedExpression
    | oC_ExistentialSubquery
    | oC_CountSubquery
    | oC_FunctionInvocation
    | oC_MapProjection
    | oC_Variable
    ;

oC_CaseExpression : CASE oC_Expression? oC_CaseAlternative+ ( ELSE oC_Expression )? END ;

oC_CaseAlternative : WHEN oC_Expression THEN oC_Expression ;

oC_ListComprehension : '[' oC_FilterExpression ( '|' oC_Expression )? ']' ;

oC_PatternComprehension : '[' ( oC_Variable '=' )? oC_RelationshipsPattern oC_Where? '|' oC_Expression ']' ;

oC_Reduce : REDUCE '(' oC_Variable '=' oC_Expression ',' oC_IdInColl '|' oC_Expression ')' ;

oC_Quantifier : ( ALL | ANY | NONE | SINGLE ) '(' oC_FilterExpression ')' ;

oC_FilterExpression : oC_IdInColl oC_Where? ;

oC_IdInColl : oC_Variable IN oC_Expression ;

oC_PatternPredicate : oC_RelationshipsPattern ;

oC_ParenthesizedExpression : '(' oC_Expression ')' ;

oC_FunctionInvocation : oC_FunctionName '(' DISTINCT? ( oC_Expression ( ',' oC_Expression )* )? ')' ;

oC_FunctionName : oC_Namespace oC_SymbolicName ;

oC_ExistentialSubquery : EXISTS '{' ( oC_RegularQuery | oC_Pattern oC_Where? ) '}' ;

oC_CountSubquery : COUNT '{' ( oC_RegularQuery | oC_Pattern oC_Where? ) '}' ;

oC_MapProjection : oC_Variable '{' ( oC_MapProjectionItem ( ',' oC_MapProjectionItem )* )? '}' ;

oC_MapProjectionItem
    : '.' '*'
    | '.' oC_SchemaName
    | oC_SchemaName ':' oC_Expression
    | oC_Variable
    ;

oC_Namespace : ( oC_SymbolicName '.' )* ;

oC_Variable : oC_SymbolicName ;

oC_Literal
    : oC_BooleanLiteral
    | NULL
    | oC_NumberLiteral
    | StringLiteral
    | oC_ListLiteral
    | oC_MapLiteral
    ;

oC_BooleanLiteral : TRUE | FALSE ;

oC_NumberLiteral : oC_DoubleLiteral | oC_IntegerLiteral ;

oC_IntegerLiteral : HexInteger | OctalInteger | DecimalInteger ;

oC_DoubleLiteral : ExponentDecimalReal | RegularDecimalReal ;

oC_ListLiteral : '[' ( oC_Expression ( ',' oC_Expression )* )? ']' ;

oC_MapLiteral : '{' ( oC_PropertyKeyName ':' oC_Expression ( ',' oC_PropertyKeyName ':' oC_Expression )* )? '}' ;

oC_PropertyKeyName : oC_SchemaName ;

oC_Parameter : '$' ( oC_SymbolicName | DecimalInteger ) ;

oC_SchemaName : oC_SymbolicName | oC_ReservedWord ;

oC_SymbolicName
    : UnescapedSymbolicName
    | EscapedSymbolicName
    | COUNT | FILTER | EXTRACT | ANY | NONE | SINGLE | SHORTESTPATH | ALLSHORTESTPATHS | REDUCE
    | YIELD | CALL | FOREACH | HexLetter
    ;

oC_ReservedWord
    : ALL | ASC | ASCENDING | BY | CREATE | DELETE | DESC | DESCENDING | DETACH | EXISTS | LIMIT
    | MATCH | MERGE | ON | OPTIONAL | ORDER | REMOVE | RETURN | SET | SKIP_ | WHERE | WITH | UNION
    | UNWIND | AND | AS | CONTAINS | DISTINCT | ENDS | IN | IS | NOT | OR | STARTS | XOR | FALSE
    | TRUE | NULL | CASE | WHEN | THEN | ELSE | END
    ;

UNION : 'UNION' ;
ALL : 'ALL' ;
OPTIONAL : 'OPTIONAL' ;
MATCH : 'MATCH' ;
UNWIND : 'UNWIND' ;
AS : 'AS' ;
CALL : 'CALL' ;
YIELD : 'YIELD' ;
WITH : 'WITH' ;
RETURN : 'RETURN' ;
DISTINCT : 'DISTINCT' ;
ORDER : 'ORDER' ;
BY : 'BY' ;
SKIP_ : 'SKIP' ;
LIMIT : 'LIMIT' ;
ASCENDING : 'ASCENDING' ;
ASC : 'ASC' ;
DESCENDING : 'DESCENDING' ;
DESC : 'DESC' ;
CREATE : 'CREATE' ;
MERGE : 'MERGE' ;
ON : 'ON' ;
SET : 'SET' ;
DETACH : 'DETACH' ;
DELETE : 'DELETE' ;
REMOVE : 'REMOVE' ;
FOREACH : 'FOREACH' ;
IN : 'IN' ;
WHERE : 'WHERE' ;
SHORTESTPATH : 'SHORTESTPATH' ;
ALLSHORTESTPATHS : 'ALLSHORTESTPATHS' ;
OR : 'OR' ;
XOR : 'XOR' ;
AND : 'AND' ;
NOT : 'NOT' ;
STARTS : 'STARTS' ;
ENDS : 'ENDS' ;
CONTAINS : 'CONTAINS' ;
IS : 'IS' ;
NULL : 'NULL' ;
COUNT : 'COUNT' ;
CASE : 'CASE' ;
ELSE : 'ELSE' ;
END : 'END' ;
WHEN : 'WHEN' ;
THEN : 'THEN' ;
FILTER : 'FILTER' ;
EXTRACT : 'EXTRACT' ;
REDUCE : 'REDUCE' ;
ANY : 'ANY' ;
NONE : 'NONE' ;
SINGLE : 'SINGLE' ;
EXISTS : 'EXISTS' ;
TRUE : 'TRUE' ;
FALSE : 'FALSE' ;

HexInteger : '0X' HexDigit+ ;
OctalInteger : '0O' OctDigit+ ;
DecimalInteger : '0' | [1-9] Digit* ;
ExponentDecimalReal : ( Digit+ | Digit+ '.' Digit+ | '.' Digit+ ) 'E' '-'? Digit+ ;
RegularDecimalReal : Digit* '.' Digit+ ;
HexLetter : [A-F] ;

StringLiteral
    : '"' ( ~["\\] | EscapedChar )* '"'
    | '\'' ( ~['\\] | EscapedChar )* '\''
    ;

UnescapedSymbolicName : IdentifierStart IdentifierPart* ;

EscapedSymbolicName : ( '`' ~[`]* '`' )+ ;

WHITESPACE : [ \t\n\r\u000B\f\u001C-\u001F\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+ -> skip ;

COMMENT : ( '/*' .*? '*/' | '//' ~[\n\r]* ) -> skip ;

fragment EscapedChar : '\\' ( '\\' | '\'' | '"' | 'B' | 'F' | 'N' | 'R' | 'T' | '.' | '*' | '(' | ')' | '[' | ']' | '{' | '}' | '?' | '+' | '|' | '^' | '$' | '-' | 'D' | 'S' | 'W' | 'U' HexDigit HexDigit HexDigit HexDigit ) ;
fragment HexDigit : [0-9A-F] ;
fragment Digit : [0-9] ;
fragment OctDigit : [0-7] ;
fragment IdentifierStart : [\p{ID_Start}] | [\p{Pc}] ;
fragment IdentifierPart : [\p{ID_Continue}] | [\p{Sc}] ;
